package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
)

var addUsageSQL = sqliteParams(codec.AddUsageSQL(""))

// sqliteParams turns the shared SQL's $1, $2 … into SQLite's ?1, ?2 ….
func sqliteParams(q string) string { return strings.ReplaceAll(q, "$", "?") }

// AddUsage implements session.UsageStore.
func (s *Store) AddUsage(ctx context.Context, sessionID string, at time.Time, model string, u session.Usage) error {
	args := append([]any{sessionID, session.UsageHour(at), model}, codec.UsageValues(u)...)
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, addUsageSQL, args...)
		if err != nil {
			return err
		}
		return mustAffect(res, sessionID)
	})
	if err != nil {
		return fmt.Errorf("record usage of session %s: %w", sessionID, err)
	}
	return nil
}

// UsageReport implements session.UsageStore.
func (s *Store) UsageReport(ctx context.Context, q session.UsageQuery) ([]session.UsageRow, error) {
	return codec.UsageReport("", q, func(query string, args, dest []any, each func() error) error {
		rows, err := s.db.QueryContext(ctx, sqliteParams(query), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		return codec.Each(rows, dest, each)
	})
}
