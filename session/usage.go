package session

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// Usage is what sessions used: model calls and their tokens, tool calls and
// what became of their plans. The engine records it as it goes (a model
// call's tokens when the call completes, a plan's outcome when the
// workflow takes it) and usage reports add it up.
type Usage struct {
	ModelCalls       int `json:"model_calls"`
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
	// ReasoningTokens is how many of OutputTokens the model spent
	// reasoning, where its API reports it.
	ReasoningTokens int `json:"reasoning_tokens"`
	// ToolCalls counts the calls the model's messages made.
	ToolCalls int `json:"tool_calls"`
	// Plan outcomes: submitted for review, approved, sent back with
	// feedback, cancelled, stopped because execution stalled.
	PlansSubmitted int `json:"plans_submitted"`
	PlansApproved  int `json:"plans_approved"`
	PlansRefined   int `json:"plans_refined"`
	PlansCancelled int `json:"plans_cancelled"`
	PlansStalled   int `json:"plans_stalled"`
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		ModelCalls:       u.ModelCalls + v.ModelCalls,
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
		ToolCalls:        u.ToolCalls + v.ToolCalls,
		PlansSubmitted:   u.PlansSubmitted + v.PlansSubmitted,
		PlansApproved:    u.PlansApproved + v.PlansApproved,
		PlansRefined:     u.PlansRefined + v.PlansRefined,
		PlansCancelled:   u.PlansCancelled + v.PlansCancelled,
		PlansStalled:     u.PlansStalled + v.PlansStalled,
	}
}

// UsageGroup says how a usage report groups its rows.
type UsageGroup string

// The groupings of UsageQuery.By.
const (
	ByDay     UsageGroup = "day"     // the local calendar day (UsageQuery.Offset)
	ByModel   UsageGroup = "model"   // "provider/model"
	ByWorkdir UsageGroup = "workdir" // the session's working directory
	BySession UsageGroup = "session" // the session's id
)

// UsageQuery selects and groups usage.
type UsageQuery struct {
	// Since leaves out usage recorded before this time (to the hour); zero
	// means all.
	Since time.Time
	// By groups the rows (default ByDay).
	By UsageGroup
	// Offset is added to UTC times to find their day (ByDay): the offset
	// of the reader's time zone, e.g. from time.Now().Zone().
	Offset time.Duration
	// Session, when set (a full id), keeps only that session and the
	// sub-agent sessions it started.
	Session string
}

// UsageRow is the usage of one group: its total (Total set), or its usage
// with one model (cost is a model's price times its tokens). The row with
// Key "" is the grand total of every group.
type UsageRow struct {
	// Key is the group: "2026-12-01" by day, the model, the workdir, or
	// by session the top-level session's id (a sub-agent's usage counts
	// toward the session that started it); "" for the grand total.
	Key   string `json:"key"`
	Total bool   `json:"total"`
	// Model is the "provider/model" of a model's row; "" on a total.
	Model string `json:"model,omitempty"`
	// Sessions counts the top-level sessions with usage in the group
	// (sub-agents' usage counts toward the tokens, not the sessions); set
	// on totals only.
	Sessions int `json:"sessions,omitempty"`
	Usage
}

// UsageStore is implemented by stores that keep usage for reports
// (`harness9 stats`, the totals of `sessions show`). It is optional: the
// engine records nothing into a store without it.
type UsageStore interface {
	// AddUsage adds u to what session sessionID used at time at with
	// model ("provider/model", never empty). An unknown session wraps
	// ErrNotFound.
	AddUsage(ctx context.Context, sessionID string, at time.Time, model string, u Usage) error
	// UsageReport returns the usage q selects, in one query: the grand
	// total (Key "", always there), then for each group (ordered by Key)
	// its total row, then one row per model ordered by Model.
	UsageReport(ctx context.Context, q UsageQuery) ([]UsageRow, error)
}

// UsageHour is the hour usage recorded at t is kept under (Unix hours):
// stores keep one row per session, hour and model.
func UsageHour(t time.Time) int64 { return floorDiv(t.Unix(), 3600) }

// UsageDayNumber is the day (days since 1970-01-01 at offset) of hour h:
// what stores group ByDay by, in SQL.
func UsageDayNumber(hour int64, offset time.Duration) int64 {
	return floorDiv(hour*3600+int64(offset/time.Second), 86400)
}

// DayFromNumber is the "2006-01-02" form of a UsageDayNumber.
func DayFromNumber(day int64) string {
	return time.Unix(day*86400, 0).UTC().Format(time.DateOnly)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// SortUsageRows puts a report's rows in UsageStore.UsageReport's order, by
// bytes (a database's collation may order text otherwise).
func SortUsageRows(rows []UsageRow) {
	slices.SortStableFunc(rows, func(a, b UsageRow) int {
		if c := cmp.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		if a.Total != b.Total {
			if a.Total {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.Model, b.Model)
	})
}
