package agent_test

import (
	"context"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// The engine records what a session uses in the store's usage ledger: each
// model call with its tokens and tool calls under the model that answered
// it (a run's model override included), and each plan outcome — submitted,
// refined, cancelled, approved, stalled — once, whichever process takes it.
func TestUsageLedger(t *testing.T) {
	h := newHarness(t)
	u := func(in, out int) llm.Usage {
		return llm.Usage{InputTokens: in, OutputTokens: out, CacheReadTokens: in / 2}
	}
	h.p.Add(
		scripted.Turn{Calls: scripted.Calls(submitCall("Plan", "one")), Usage: u(100, 10)},
		// Refined with feedback: the plan is submitted again.
		scripted.Turn{Calls: scripted.Calls(read("x"), submitCall("Plan", "one", "two")), Usage: u(200, 20)},
	)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	wantDone(t, drain(t, eng.Run(context.Background(), "plan")), agent.RunAwaitingApproval)
	start, err := eng.Review(planning.ReviewRefine, "add a step")
	if err != nil {
		t.Fatal(err)
	}
	wantDone(t, drain(t, start(context.Background())), agent.RunAwaitingApproval)
	// Cancelled from another process; then a new plan, approved, stalls.
	if err := h.engine(agent.WithSession(eng.SessionID())).CancelPlan(); err != nil {
		t.Fatal(err)
	}
	h.p.Add(scripted.Turn{Calls: scripted.Calls(submitCall("Again", "one")), Usage: u(300, 30)})
	eng = h.engine(agent.WithSession(eng.SessionID()), agent.WithMode(planning.ModePlan), agent.WithStallThreshold(1))
	wantDone(t, drain(t, eng.Run(context.Background(), "plan again")), agent.RunAwaitingApproval)
	h.p.Add(scripted.Turn{Text: "nothing done", Usage: u(400, 40)})
	wantDone(t, drain(t, eng.Approve(context.Background(), planning.ModeDefault)), agent.RunStalled)
	// A run with another model.
	h.p.Add(scripted.Turn{Text: "hi", Usage: u(1, 1)})
	wantDone(t, drain(t, eng.RunWith(context.Background(), "hello", agent.RunOptions{Model: "other"})), agent.RunCompleted)

	rows, err := h.open().UsageReport(context.Background(), session.UsageQuery{By: session.ByModel, Session: eng.SessionID()})
	if err != nil {
		t.Fatal(err)
	}
	want := []session.UsageRow{
		{Key: "scripted/other", Total: true, Sessions: 1, Usage: session.Usage{ModelCalls: 1, InputTokens: 1, OutputTokens: 1}},
		{Key: "scripted/other", Model: "scripted/other", Usage: session.Usage{ModelCalls: 1, InputTokens: 1, OutputTokens: 1}},
		{Key: "scripted/test-model", Total: true, Sessions: 1, Usage: session.Usage{ModelCalls: 4, InputTokens: 1000, OutputTokens: 100,
			CacheReadTokens: 500, ToolCalls: 4, PlansSubmitted: 3, PlansRefined: 1, PlansCancelled: 1, PlansApproved: 1, PlansStalled: 1}},
	}
	want = append(want, want[2])
	want[3].Total, want[3].Sessions, want[3].Model = false, 0, "scripted/test-model"
	grand := session.UsageRow{Total: true, Sessions: 1, Usage: want[0].Usage.Add(want[2].Usage)}
	want = append([]session.UsageRow{grand}, want...)
	if len(rows) != len(want) {
		t.Fatalf("rows:\n%+v\nwant\n%+v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, rows[i], want[i])
		}
	}
}
