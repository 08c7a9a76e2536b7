package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/harness9/harness9/session/internal/migration"
)

// migrationFS holds the schema as plain SQL files named NNNN_description.sql.
// Version N is a row of harness9.schema_migrations once file N has been
// applied.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// ErrForeign is matched (errors.Is) by the error Open and Check return for
// a database whose harness9 schema harness9 did not create.
var ErrForeign = errors.New("not a harness9 session database")

// migrateLockKey is the transaction-level advisory lock that serialises
// schema changes: two hosts opening a fresh database at once queue on it,
// and the second finds the work done.
const migrateLockKey int64 = 0x6861726e65737339 // "harness9"

// bootstrap creates the schema and the version table, under the lock.
const bootstrap = `CREATE SCHEMA IF NOT EXISTS harness9;
CREATE TABLE IF NOT EXISTS harness9.schema_migrations (
    version integer PRIMARY KEY,
    name    text    NOT NULL,
    applied bigint  NOT NULL
)`

func loadMigrations() ([]migration.Migration, error) {
	return migration.Load(migrationFS, "migrations/*.sql")
}

// SchemaVersion is the schema version this package writes and reads.
func SchemaVersion() int {
	ms, err := loadMigrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// migrate applies every migration the database lacks, all in one
// transaction that first takes migrateLockKey.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := loadMigrations()
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", migrateLockKey); err != nil {
		return fmt.Errorf("lock the schema: %w", err)
	}
	cur, err := schemaVersion(ctx, tx)
	if err != nil {
		return err
	}
	if cur > len(ms) {
		return fmt.Errorf("database schema version %d is newer than this harness9 supports (%d): upgrade harness9 or use another database", cur, len(ms))
	}
	if cur == len(ms) {
		return nil
	}
	if _, err := tx.Exec(ctx, bootstrap); err != nil {
		return fmt.Errorf("create the harness9 schema: %w", err)
	}
	for _, m := range ms[cur:] {
		if _, err := tx.Exec(ctx, m.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO harness9.schema_migrations (version, name, applied) VALUES ($1, $2, $3)`,
			m.Version, m.Name, time.Now().UnixNano()); err != nil {
			return fmt.Errorf("migration %s: record version: %w", m.Name, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit migrations: %w", err)
	}
	return nil
}

// schemaVersion reads the applied version: 0 for a database without the
// harness9 schema. A harness9 schema with tables but no version table is
// someone else's, which migrating would write into.
func schemaVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var hasVersions bool
	var tables int
	err := q.QueryRow(ctx, `SELECT to_regclass('harness9.schema_migrations') IS NOT NULL,
		(SELECT count(*) FROM pg_tables WHERE schemaname = 'harness9')`).Scan(&hasVersions, &tables)
	if err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	if !hasVersions {
		if tables > 0 {
			return 0, fmt.Errorf("%w: its schema harness9 has tables but no harness9.schema_migrations; use another database or drop that schema", ErrForeign)
		}
		return 0, nil
	}
	var v int
	if err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM harness9.schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read the schema version: %w", err)
	}
	return v, nil
}
