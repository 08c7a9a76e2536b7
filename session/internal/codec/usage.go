package codec

import (
	"fmt"
	"strings"

	"github.com/harness9/harness9/session"
)

// The usage ledger's SQL, shared by the SQLite and PostgreSQL stores: the
// same columns, the same upsert and the same report query, so both
// databases add up usage alike. Placeholders are written $1, $2 …
// (SQLite's stores turn them into ?1, ?2 …).

// usageColumns are the counters of a session_usage row, in Usage's order.
const usageColumns = `model_calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, tool_calls,
	plans_submitted, plans_approved, plans_refined, plans_cancelled, plans_stalled, reasoning_tokens`

// UsageValues returns u's counters in usageColumns' order.
func UsageValues(u session.Usage) []any {
	return []any{u.ModelCalls, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ToolCalls,
		u.PlansSubmitted, u.PlansApproved, u.PlansRefined, u.PlansCancelled, u.PlansStalled, u.ReasoningTokens}
}

// AddUsageSQL is the upsert of one (session, hour, model) row into
// prefix+"session_usage", copying the session's workdir and parent from
// prefix+"sessions" (they never change) so that reports read one table;
// its parameters are session id, hour, model, then UsageValues. No row
// affected means no such session.
func AddUsageSQL(prefix string) string {
	cols := strings.Split(strings.Join(strings.Fields(usageColumns), ""), ",")
	params := make([]string, len(cols))
	sets := make([]string, len(cols))
	for i, c := range cols {
		params[i] = fmt.Sprintf("CAST($%d AS BIGINT)", i+4)
		sets[i] = fmt.Sprintf("%s = t.%s + excluded.%s", c, c, c)
	}
	return fmt.Sprintf(`INSERT INTO %ssession_usage AS t (session_id, hour, model, workdir, parent_id, %s)
		SELECT s.id, CAST($2 AS BIGINT), CAST($3 AS TEXT), s.workdir, s.parent_id, %s FROM %ssessions AS s WHERE s.id = $1
		ON CONFLICT (session_id, hour, model) DO UPDATE SET %s`,
		prefix, strings.Join(cols, ", "), strings.Join(params, ", "), prefix, strings.Join(sets, ", "))
}

// UsageReportSQL is the report query of q over the table
// prefix+"session_usage", with its arguments: the grand total, each
// group's total (both count top-level sessions) and its per-model rows, in
// one statement, in no order (session.SortUsageRows orders them).
func UsageReportSQL(prefix string, q session.UsageQuery) (string, []any, error) {
	var key string
	switch q.By {
	case session.ByDay, "":
		// An inlined integer: a parameter here would leave PostgreSQL
		// without its type when the query did not use it.
		key = fmt.Sprintf("(hour * 3600 + %d) / 86400", int64(q.Offset.Seconds()))
	case session.ByModel:
		key = "model"
	case session.ByWorkdir:
		key = "workdir"
	case session.BySession:
		key = "CASE WHEN parent_id = '' THEN session_id ELSE parent_id END"
	default:
		return "", nil, fmt.Errorf("usage report: unknown grouping %q (day, model, workdir or session)", q.By)
	}
	// No condition at all reads the table straight through, faster than
	// through an index when every row counts.
	where := "true"
	if !q.Since.IsZero() {
		where = fmt.Sprintf("hour >= %d", session.UsageHour(q.Since))
	}
	var args []any
	if q.Session != "" {
		where += " AND (session_id = $1 OR parent_id = $1)"
		args = append(args, q.Session)
	}
	var sums []string
	for _, c := range strings.Split(strings.Join(strings.Fields(usageColumns), ""), ",") {
		sums = append(sums, fmt.Sprintf("CAST(coalesce(sum(%s), 0) AS BIGINT)", c))
	}
	zeros := strings.TrimSuffix(strings.Repeat("0, ", len(sums)), ", ")
	// Top-level sessions' rows. For one session's report it is written so
	// that the index on parent_id is not chosen for it: nearly every row
	// matches, and the planner would give up the session's own index.
	topLevel := "parent_id = ''"
	if q.Session != "" {
		topLevel = "(parent_id || '') = ''"
	}
	table := prefix + "session_usage"
	// One pass adds up the counters per group and model; the group and
	// grand totals are their sums, made in Go (UsageReport), so the
	// counters are added up once, not three times. Only the count of
	// top-level sessions needs the table again, without the counters.
	query := fmt.Sprintf(`SELECT CAST(%[1]s AS TEXT), 0, model, 0, %[2]s FROM %[3]s WHERE %[4]s GROUP BY 1, model
	UNION ALL
	SELECT CAST(%[1]s AS TEXT), 1, '', count(DISTINCT session_id), %[5]s FROM %[3]s WHERE %[4]s AND %[6]s GROUP BY 1
	UNION ALL
	SELECT '', 2, '', count(DISTINCT session_id), %[5]s FROM %[3]s WHERE %[4]s AND %[6]s`,
		key, strings.Join(sums, ", "), table, where, zeros, topLevel)
	return query, args, nil
}

// UsageRowScan receives one row of UsageReportSQL.
type UsageRowScan struct {
	row   session.UsageRow
	total int
	vals  [13]int64
}

// Dest returns where to scan the row's columns.
func (r *UsageRowScan) Dest() []any {
	d := []any{&r.row.Key, &r.total, &r.row.Model}
	for i := range r.vals {
		d = append(d, &r.vals[i])
	}
	return d
}

// Row returns the scanned row; by day its key becomes a date.
func (r *UsageRowScan) Row(by session.UsageGroup) (session.UsageRow, error) {
	row := r.row
	row.Total = r.total != 0
	if r.total == 2 {
		row.Key = ""
	}
	v := r.vals
	row.Sessions = int(v[0])
	row.Usage = session.Usage{ModelCalls: int(v[1]), InputTokens: int(v[2]), OutputTokens: int(v[3]),
		CacheReadTokens: int(v[4]), CacheWriteTokens: int(v[5]), ToolCalls: int(v[6]),
		PlansSubmitted: int(v[7]), PlansApproved: int(v[8]), PlansRefined: int(v[9]), PlansCancelled: int(v[10]), PlansStalled: int(v[11]),
		ReasoningTokens: int(v[12])}
	if (by == session.ByDay || by == "") && r.total != 2 {
		var day int64
		if _, err := fmt.Sscan(row.Key, &day); err != nil {
			return row, fmt.Errorf("usage report: day %q: %w", row.Key, err)
		}
		row.Key = session.DayFromNumber(day)
	}
	return row, nil
}

// Querier runs query with args, scanning each row into dest and calling
// each after it: a store's way of running the report.
type Querier func(query string, args, dest []any, each func() error) error

// UsageReport runs q's report through run (Store.UsageReport) and orders
// its rows.
func UsageReport(prefix string, q session.UsageQuery, run Querier) ([]session.UsageRow, error) {
	query, args, err := UsageReportSQL(prefix, q)
	if err != nil {
		return nil, err
	}
	var out []session.UsageRow
	var scan UsageRowScan
	err = run(query, args, scan.Dest(), func() error {
		r, err := scan.Row(q.By)
		out = append(out, r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	return addTotals(out), nil
}

// addTotals fills the group and grand totals' counters with the sums of
// the per-model rows (the query counts only their sessions), adds a total
// for a group whose usage came only from sub-agents, and orders the rows.
func addTotals(rows []session.UsageRow) []session.UsageRow {
	totals := map[string]int{}
	for i, r := range rows {
		if r.Total {
			totals[r.Key] = i
		}
	}
	n := len(rows)
	for i := range n {
		r := rows[i]
		if r.Total {
			continue
		}
		t, ok := totals[r.Key]
		if !ok { // only sub-agents used this group: no top-level session
			rows = append(rows, session.UsageRow{Key: r.Key, Total: true})
			t = len(rows) - 1
			totals[r.Key] = t
		}
		rows[t].Usage = rows[t].Usage.Add(r.Usage)
		if g, ok := totals[""]; ok {
			rows[g].Usage = rows[g].Usage.Add(r.Usage)
		}
	}
	session.SortUsageRows(rows)
	return rows
}

// Rows is what database/sql's and pgx's row sets share.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Each scans every row of rows into dest and calls each after it.
func Each(rows Rows, dest []any, each func() error) error {
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := each(); err != nil {
			return err
		}
	}
	return rows.Err()
}
