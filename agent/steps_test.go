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

// A durable engine's worker can die between steps or in the middle of
// one; the retried step runs on a fresh engine loaded from the store. These
// tests play that: each step on a new engine, with the store as the only
// thing carried over.
func TestStepsRetriedAfterACrashDoNotRepeatStoredWork(t *testing.T) {
	h := newHarness(t, scripted.Turn{Calls: scripted.Calls(write("first.txt", "1"), write("second.txt", "2"))})
	ctx := context.Background()
	s := &session.Session{Workdir: h.dir, Title: "t"}
	if err := h.store.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	fresh := func() *agent.Engine { return h.engine(agent.WithSession(s.ID)) }

	r, err := fresh().StepPrompt(ctx, planning.ModeDefault, "write two files", 0)
	if err != nil || r.HistoryLen != 1 {
		t.Fatalf("prompt: %v, history %d", err, r.HistoryLen)
	}
	// The prompt step retried: the prompt is not stored twice.
	if r, err = fresh().StepPrompt(ctx, planning.ModeDefault, "write two files", 0); err != nil || r.HistoryLen != 1 {
		t.Fatalf("retried prompt: %v, history %d, want 1 message", err, r.HistoryLen)
	}
	m, err := fresh().StepModel(ctx, planning.ModeDefault, 1)
	if err != nil || m.Calls != 2 {
		t.Fatalf("model: %v, %d calls", err, m.Calls)
	}
	// The model step retried after its answer was stored: the script has
	// one turn, so a second model call would fail.
	if m, err = fresh().StepModel(ctx, planning.ModeDefault, 1); err != nil || m.Calls != 2 || m.HistoryLen != 2 {
		t.Fatalf("retried model step: %v, %d calls, history %d; want the stored answer reused", err, m.Calls, m.HistoryLen)
	}

	// The worker ran the first call and stored its result, then died. The
	// stored result stands in for that run: its file was not written here,
	// so a repeat would show on disk.
	first := h.messages(s.ID)[1].ToolCalls[0]
	stored := llm.Message{Role: llm.RoleTool, ToolCallID: first.ID, Name: first.Name, Content: "wrote first.txt"}
	if err := h.store.AppendMessage(ctx, s.ID, stored); err != nil {
		t.Fatal(err)
	}
	tb, err := fresh().StepTools(ctx, planning.ModeDefault)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := h.file("first.txt"); ok {
		t.Fatal("the call whose result was stored ran again")
	}
	if got, ok := h.file("second.txt"); !ok || got != "2" {
		t.Fatalf("the unanswered call did not run: second.txt = %q, %v", got, ok)
	}
	if tb.Status != "" || tb.HistoryLen != 4 {
		t.Fatalf("tool step: status %q, history %d; want the loop to go on with 4 messages", tb.Status, tb.HistoryLen)
	}
	// Everything answered: a further retry runs nothing and stores nothing.
	if tb, err = fresh().StepTools(ctx, planning.ModeDefault); err != nil || tb.HistoryLen != 4 {
		t.Fatalf("retried tool step: %v, history %d", err, tb.HistoryLen)
	}
}

func TestStepsPlanApproveComplete(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{"title": "P", "content": "c", "steps": []string{"one"}}))})
	ctx := context.Background()
	s := &session.Session{Workdir: h.dir, Title: "t"}
	if err := h.store.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	fresh := func() *agent.Engine { return h.engine(agent.WithSession(s.ID)) }
	if _, err := fresh().StepPrompt(ctx, planning.ModePlan, "plan it", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := fresh().StepModel(ctx, planning.ModePlan, 1); err != nil {
		t.Fatal(err)
	}
	tb, err := fresh().StepTools(ctx, planning.ModePlan)
	if err != nil || tb.Status != agent.RunAwaitingApproval {
		t.Fatalf("tool step: %v, status %q; want awaiting_approval", err, tb.Status)
	}
	// Retried after the plan was stored: still awaiting approval.
	if tb, err = fresh().StepTools(ctx, planning.ModePlan); err != nil || tb.Status != agent.RunAwaitingApproval {
		t.Fatalf("retried tool step: %v, status %q", err, tb.Status)
	}
	ap, err := fresh().StepApprove(ctx, planning.ModeDefault)
	if err != nil || len(ap.Todos) != 1 {
		t.Fatalf("approve: %v, todos %v", err, ap.Todos)
	}
	if _, err := fresh().StepApprove(ctx, planning.ModeDefault); err != nil {
		t.Fatalf("a retried approval must succeed: %v", err)
	}
	if _, err := fresh().StepApprove(ctx, planning.ModePlan); err == nil {
		t.Fatal("approving for Plan mode (which cannot edit) was accepted")
	}
	if err := fresh().StepComplete(ctx, planning.ExecStalled); err != nil {
		t.Fatal(err)
	}
	if st := fresh().Status(); st != planning.StatusStalled {
		t.Fatalf("status %s, want stalled", st)
	}
}
