package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/harness9/harness9/session/internal/migration"
)

// migrationFS holds the schema as plain SQL files named NNNN_description.sql.
// Version N is recorded in PRAGMA user_version once file N has been applied.
// Files are never edited once released; a schema change is a new file.
//
//go:embed migrations/*.sql
var migrationFS embed.FS

// loadMigrations returns the embedded migrations in version order.
func loadMigrations(fsys fs.FS) ([]migration.Migration, error) {
	return migration.Load(fsys, "migrations/*.sql")
}

// SchemaVersion is the schema version this package writes and reads.
func SchemaVersion() int {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		return 0
	}
	return len(ms)
}

// migrate applies every migration newer than the database's user_version,
// each in its own BEGIN IMMEDIATE transaction together with the version
// bump. The version is re-read inside the transaction, so two processes
// opening a fresh database at once apply each migration exactly once.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	cur, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if err := checkOwnership(ctx, db, cur); err != nil {
		return err
	}
	if cur > len(ms) {
		return fmt.Errorf("database schema version %d is newer than this harness9 supports (%d): upgrade harness9 or use another database file", cur, len(ms))
	}
	for _, m := range ms[cur:] {
		if err := apply(ctx, db, m); err != nil {
			return err
		}
	}
	return nil
}

func apply(ctx context.Context, db *sql.DB, m migration.Migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migration %s: %w", m.Name, err)
	}
	defer func() { _ = tx.Rollback() }()
	var cur int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&cur); err != nil {
		return fmt.Errorf("migration %s: read schema version: %w", m.Name, err)
	}
	if cur >= m.Version {
		return nil // another process got here first
	}
	if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
		return fmt.Errorf("migration %s: %w", m.Name, err)
	}
	// PRAGMA takes no bound parameters; the version is an int we control.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
		return fmt.Errorf("migration %s: set schema version: %w", m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migration %s: commit: %w", m.Name, err)
	}
	return nil
}

func userVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
