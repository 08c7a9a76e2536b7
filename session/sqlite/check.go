package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// ErrForeign is matched (errors.Is) by the error Open and Check return for
// an SQLite database that harness9 did not create.
var ErrForeign = errors.New("not a harness9 session database")

// Report is what Check found in a session database.
type Report struct {
	SchemaVersion int
	Sessions      int
}

// Check inspects the session database at path without changing it: it runs
// PRAGMA integrity_check and verifies that the file is a harness9 database
// this version can read. A damaged file returns an error saying what
// SQLite found.
func Check(ctx context.Context, path string) (Report, error) {
	if _, err := os.Stat(path); err != nil {
		return Report{}, err
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(2000)")
	q.Set("mode", "ro")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return Report{}, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return Report{}, fmt.Errorf("integrity check: %w", err)
	}
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			rows.Close()
			return Report{}, fmt.Errorf("integrity check: %w", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return Report{}, fmt.Errorf("integrity check: %w", err)
	}
	rows.Close()
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], fmt.Sprintf("and %d more", len(problems)-3))
		}
		return Report{}, fmt.Errorf("integrity check failed: %s", strings.Join(problems, "; "))
	}
	var r Report
	if r.SchemaVersion, err = userVersion(ctx, db); err != nil {
		return r, err
	}
	if err := checkOwnership(ctx, db, r.SchemaVersion); err != nil {
		return r, err
	}
	if r.SchemaVersion == 0 {
		return r, nil // empty: the first Open creates the schema
	}
	if r.SchemaVersion > SchemaVersion() {
		return r, fmt.Errorf("schema version %d is newer than this harness9 supports (%d): upgrade harness9", r.SchemaVersion, SchemaVersion())
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sessions").Scan(&r.Sessions); err != nil {
		return r, fmt.Errorf("count sessions: %w", err)
	}
	return r, nil
}

// checkOwnership refuses a database with tables but no harness9 schema
// version: another program's file, which migrating would write into.
func checkOwnership(ctx context.Context, db interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, version int) error {
	if version != 0 {
		return nil
	}
	var name string
	err := db.QueryRowContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' LIMIT 1").Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the schema: %w", err)
	}
	return fmt.Errorf("%w: it has a table %q but no harness9 schema version", ErrForeign, name)
}
