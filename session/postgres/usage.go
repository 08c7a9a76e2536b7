package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
)

var addUsageSQL = codec.AddUsageSQL("harness9.")

// AddUsage implements session.UsageStore.
func (s *Store) AddUsage(ctx context.Context, sessionID string, at time.Time, model string, u session.Usage) error {
	args := append([]any{sessionID, session.UsageHour(at), model}, codec.UsageValues(u)...)
	tag, err := s.pool.Exec(ctx, addUsageSQL, args...)
	if err != nil {
		return fmt.Errorf("record usage of session %s: %w", sessionID, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound(sessionID)
	}
	return nil
}

// UsageReport implements session.UsageStore.
func (s *Store) UsageReport(ctx context.Context, q session.UsageQuery) ([]session.UsageRow, error) {
	return codec.UsageReport("harness9.", q, func(query string, args, dest []any, each func() error) error {
		rows, err := s.pool.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		return codec.Each(rows, dest, each)
	})
}
