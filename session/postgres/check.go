package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Report is what Check found in a session database.
type Report struct {
	// Server is the server's version string (SHOW server_version).
	Server        string
	SchemaVersion int
	Sessions      int
}

// Check connects to the database named by dsn and inspects it without
// changing it: that the server answers, that its harness9 schema (if any)
// is one this version can read, and how many sessions it holds. Errors
// never carry the password.
func Check(ctx context.Context, dsn string) (Report, error) {
	var r Report
	err := func() error {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer func() { _ = conn.Close(context.Background()) }()
		if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&r.Server); err != nil {
			return err
		}
		if r.SchemaVersion, err = schemaVersion(ctx, conn); err != nil {
			return err
		}
		if r.SchemaVersion == 0 {
			return nil // empty: the first Open creates the schema
		}
		if r.SchemaVersion > SchemaVersion() {
			return fmt.Errorf("schema version %d is newer than this harness9 supports (%d): upgrade harness9", r.SchemaVersion, SchemaVersion())
		}
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM harness9.sessions").Scan(&r.Sessions); err != nil {
			return fmt.Errorf("count sessions: %w", err)
		}
		return nil
	}()
	return r, scrub(err, dsn)
}
