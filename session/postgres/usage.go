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
	query, args, err := codec.UsageReportSQL("harness9.", q)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	defer rows.Close()
	var out []session.UsageRow
	var scan codec.UsageRowScan
	dest := scan.Dest()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("usage report: %w", err)
		}
		r, err := scan.Row(q.By)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	session.SortUsageRows(out)
	return out, nil
}
