package codec

import (
	"fmt"
	"math"
	"strings"

	"github.com/harness9/harness9/session"
)

// The usage ledger's SQL, shared by the SQLite and PostgreSQL stores: the
// same columns, the same upsert and the same report query, so both
// databases add up usage alike. Placeholders are written $1, $2 …
// (SQLite's stores turn them into ?1, ?2 …).

// usageColumns are the counters of a session_usage row, in Usage's order.
const usageColumns = `model_calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, tool_calls,
	plans_submitted, plans_approved, plans_refined, plans_cancelled, plans_stalled`

// UsageValues returns u's counters in usageColumns' order.
func UsageValues(u session.Usage) []any {
	return []any{u.ModelCalls, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ToolCalls,
		u.PlansSubmitted, u.PlansApproved, u.PlansRefined, u.PlansCancelled, u.PlansStalled}
}

// AddUsageSQL is the upsert of one (session, hour, model) row into table
// (schema-qualified as the store needs); its parameters are session id,
// hour, model, then UsageValues.
func AddUsageSQL(table string) string {
	cols := strings.Split(strings.Join(strings.Fields(usageColumns), ""), ",")
	params := make([]string, len(cols))
	sets := make([]string, len(cols))
	for i, c := range cols {
		params[i] = fmt.Sprintf("$%d", i+4)
		sets[i] = fmt.Sprintf("%s = t.%s + excluded.%s", c, c, c)
	}
	return fmt.Sprintf(`INSERT INTO %s AS t (session_id, hour, model, %s) VALUES ($1, $2, $3, %s)
		ON CONFLICT (session_id, hour, model) DO UPDATE SET %s`,
		table, strings.Join(cols, ", "), strings.Join(params, ", "), strings.Join(sets, ", "))
}

// UsageReportSQL is the report query of q over the tables prefix+
// "session_usage" and prefix+"sessions", with its arguments: the grand
// total, each group's total (both count top-level sessions) and its
// per-model rows,
// in one statement, in no order (session.SortUsageRows orders them).
func UsageReportSQL(prefix string, q session.UsageQuery) (string, []any, error) {
	var key string
	switch q.By {
	case session.ByDay, "":
		// Inlined integers: a parameter here would leave PostgreSQL
		// without its type when the query did not use it.
		key = fmt.Sprintf("(u.hour * 3600 + %d) / 86400", int64(q.Offset.Seconds()))
	case session.ByModel:
		key = "u.model"
	case session.ByWorkdir:
		key = "s.workdir"
	case session.BySession:
		key = "CASE WHEN s.parent_id = '' THEN s.id ELSE s.parent_id END"
	default:
		return "", nil, fmt.Errorf("usage report: unknown grouping %q (day, model, workdir or session)", q.By)
	}
	since := int64(math.MinInt64 / 2)
	if !q.Since.IsZero() {
		since = session.UsageHour(q.Since)
	}
	where := fmt.Sprintf("u.hour >= %d", since)
	var args []any
	if q.Session != "" {
		where += " AND (s.id = $1 OR s.parent_id = $1)"
		args = append(args, q.Session)
	}
	var sums []string
	for _, c := range strings.Split(strings.Join(strings.Fields(usageColumns), ""), ",") {
		sums = append(sums, fmt.Sprintf("CAST(coalesce(sum(%s), 0) AS BIGINT)", c))
	}
	sum := strings.Join(sums, ", ")
	query := fmt.Sprintf(`WITH u AS (
		SELECT CAST(%s AS TEXT) AS k, u.model, s.id AS sid, s.parent_id AS parent, %s
		FROM %ssession_usage AS u JOIN %ssessions AS s ON s.id = u.session_id
		WHERE %s
	)
	SELECT '' AS k, 2 AS total, '' AS model, count(DISTINCT CASE WHEN parent = '' THEN sid END) AS sessions, %s FROM u
	UNION ALL
	SELECT k, 1, '', count(DISTINCT CASE WHEN parent = '' THEN sid END), %s FROM u GROUP BY k
	UNION ALL
	SELECT k, 0, model, 0, %s FROM u GROUP BY k, model`, key, prefixed("u.", usageColumns), prefix, prefix, where, sum, sum, sum)
	return query, args, nil
}

func prefixed(p, cols string) string {
	parts := strings.Split(strings.Join(strings.Fields(cols), ""), ",")
	for i, c := range parts {
		parts[i] = p + c
	}
	return strings.Join(parts, ", ")
}

// UsageRowScan receives one row of UsageReportSQL.
type UsageRowScan struct {
	row   session.UsageRow
	total int
	vals  [12]int64
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
		PlansSubmitted: int(v[7]), PlansApproved: int(v[8]), PlansRefined: int(v[9]), PlansCancelled: int(v[10]), PlansStalled: int(v[11])}
	if (by == session.ByDay || by == "") && r.total != 2 {
		var day int64
		if _, err := fmt.Sscan(row.Key, &day); err != nil {
			return row, fmt.Errorf("usage report: day %q: %w", row.Key, err)
		}
		row.Key = session.DayFromNumber(day)
	}
	return row, nil
}
