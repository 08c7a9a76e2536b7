package agent_test

import (
	"context"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/driver"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// hosted opens the steps a durable host runs on a fresh engine of the
// session id, collecting their events.
func (h *harness) hosted(id string) driver.Steps {
	h.t.Helper()
	steps, err := driver.Hosted(h.engine(agent.WithSession(id)), func(any) {})
	if err != nil {
		h.t.Fatal(err)
	}
	return steps
}

func (h *harness) newSession() string {
	h.t.Helper()
	s := &session.Session{Workdir: h.dir, Title: "t"}
	if err := h.store.Create(context.Background(), s); err != nil {
		h.t.Fatal(err)
	}
	return s.ID
}

// A durable engine's worker can die between steps or in the middle of
// one; the retried step runs on a fresh engine loaded from the store. These
// tests play that: each step on a new engine, with the store and the
// driver's Loop as the only things carried over.
func TestHostedStepsRetriedAfterACrashDoNotRepeatStoredWork(t *testing.T) {
	h := newHarness(t, scripted.Turn{Calls: scripted.Calls(write("first.txt", "1"), write("second.txt", "2"))})
	ctx := context.Background()
	id := h.newSession()
	l := driver.Loop{Mode: planning.ModeDefault, User: true}

	r, err := h.hosted(id).Prompt(ctx, &l, "write two files")
	if err != nil || r.HistoryLen != 1 {
		t.Fatalf("prompt: %v, history %d", err, r.HistoryLen)
	}
	// The prompt step retried: the prompt is not stored twice.
	if r, err = h.hosted(id).Prompt(ctx, &l, "write two files"); err != nil || r.HistoryLen != 1 {
		t.Fatalf("retried prompt: %v, history %d, want 1 message", err, r.HistoryLen)
	}
	l.After = 1
	m, err := h.hosted(id).Model(ctx, &l)
	if err != nil || m.Calls != 2 {
		t.Fatalf("model: %v, %d calls", err, m.Calls)
	}
	// The model step retried after its answer was stored: the script has
	// one turn, so a second model call would fail.
	if m, err = h.hosted(id).Model(ctx, &l); err != nil || m.Calls != 2 || m.HistoryLen != 2 {
		t.Fatalf("retried model step: %v, %d calls, history %d; want the stored answer reused", err, m.Calls, m.HistoryLen)
	}

	// The worker ran the first call and stored its result, then died. The
	// stored result stands in for that run: its file was not written here,
	// so a repeat would show on disk.
	first := h.messages(id)[1].ToolCalls[0]
	stored := llm.Message{Role: llm.RoleTool, ToolCallID: first.ID, Name: first.Name, Content: "wrote first.txt"}
	if err := h.store.AppendMessage(ctx, id, stored); err != nil {
		t.Fatal(err)
	}
	l.After = 3
	tb, err := h.hosted(id).Tools(ctx, &l)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := h.file("first.txt"); ok {
		t.Fatal("the call whose result was stored ran again")
	}
	if got, ok := h.file("second.txt"); !ok || got != "2" {
		t.Fatalf("the unanswered call did not run: second.txt = %q, %v", got, ok)
	}
	if tb.End != "" || tb.HistoryLen != 4 {
		t.Fatalf("tool step: end %q, history %d; want the loop to go on with 4 messages", tb.End, tb.HistoryLen)
	}
	// Everything answered: a further retry runs nothing and stores nothing.
	if tb, err = h.hosted(id).Tools(ctx, &l); err != nil || tb.HistoryLen != 4 {
		t.Fatalf("retried tool step: %v, history %d", err, tb.HistoryLen)
	}
}

func TestHostedStepsPlanApproveComplete(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{"title": "P", "content": "c", "steps": []string{"one"}}))})
	ctx := context.Background()
	id := h.newSession()
	l := driver.Loop{Mode: planning.ModePlan, User: true}
	if _, err := h.hosted(id).Prompt(ctx, &l, "plan it"); err != nil {
		t.Fatal(err)
	}
	l.After = 1
	if _, err := h.hosted(id).Model(ctx, &l); err != nil {
		t.Fatal(err)
	}
	l.After = 2
	tb, err := h.hosted(id).Tools(ctx, &l)
	if err != nil || tb.End != driver.AwaitingApproval || tb.Phase != planning.StatusAwaitingApproval {
		t.Fatalf("tool step: %v, end %q, phase %s; want awaiting_approval", err, tb.End, tb.Phase)
	}
	// Retried after the plan was stored: still awaiting approval.
	if tb, err = h.hosted(id).Tools(ctx, &l); err != nil || tb.End != driver.AwaitingApproval {
		t.Fatalf("retried tool step: %v, end %q", err, tb.End)
	}
	ap, err := h.hosted(id).Approve(ctx, planning.ModeDefault)
	if err != nil || len(ap.Todos) != 1 || ap.Mode != planning.ModeDefault {
		t.Fatalf("approve: %v, todos %v, mode %s", err, ap.Todos, ap.Mode)
	}
	if _, err := h.hosted(id).Approve(ctx, planning.ModeDefault); err != nil {
		t.Fatalf("a retried approval must succeed: %v", err)
	}
	if _, err := h.hosted(id).Approve(ctx, planning.ModePlan); err == nil {
		t.Fatal("approving for Plan mode (which cannot edit) was accepted")
	}
	if _, err := h.hosted(id).Complete(ctx, planning.ExecStalled); err != nil {
		t.Fatal(err)
	}
	if _, err := h.hosted(id).Complete(ctx, planning.ExecStalled); err != nil {
		t.Fatalf("a retried completion must succeed: %v", err)
	}
	if st := h.engine(agent.WithSession(id)).Status(); st != planning.StatusStalled {
		t.Fatalf("status %s, want stalled", st)
	}
}

// A refining loop's later steps run on fresh engines, whose own start of
// the run cannot see the plan it revises (the prompt step left the
// workflow idle): the driver's Loop carries that, so a fallback plan keeps
// the revised plan's title, as on the local engine.
func TestHostedRefiningLoopKeepsThePlanTitle(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(submitCall("Parser plan", "write the parser"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(
			todo("1", "write the parser", planning.TodoPending),
			todo("2", "document it", planning.TodoPending)))},
		scripted.Turn{Text: "Same plan, with docs."},
	)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	wantDone(t, drain(t, eng.Run(context.Background(), "plan a parser")), agent.RunAwaitingApproval)
	id := eng.SessionID()
	ctx := context.Background()
	l := driver.Loop{Mode: planning.ModePlan, User: true, After: len(h.messages(id))}
	if _, err := h.hosted(id).Prompt(ctx, &l, "also document it"); err != nil || !l.Refining {
		t.Fatalf("prompt: %v, refining %v; want a refining loop", err, l.Refining)
	}
	for range 3 {
		l.After = len(h.messages(id))
		r, err := h.hosted(id).Model(ctx, &l)
		if err != nil {
			t.Fatal(err)
		}
		if r.End != "" {
			if r.End != driver.AwaitingApproval {
				t.Fatalf("end %s, want awaiting_approval", r.End)
			}
			break
		}
		l.After = len(h.messages(id))
		if _, err := h.hosted(id).Tools(ctx, &l); err != nil {
			t.Fatal(err)
		}
	}
	p := h.engine(agent.WithSession(id)).Plan()
	if p == nil || p.Title != "Parser plan" || len(p.Steps) != 2 {
		t.Fatalf("plan after refining = %+v; want the title kept and two steps", p)
	}
}

// The user may change the mode between the rounds of an execution (the
// TUI's Shift+Tab): the next round runs in it. Here the plan executes in
// Default and the user switches to AutoEdit during the first round, so the
// second round's write waits for the user.
func TestModeChangedDuringExecutionTakesEffectNextRound(t *testing.T) {
	h := newHarness(t)
	eng := planned(t, h, "create a.txt", "create b.txt")
	h.p.Add(
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted), todo("2", "create b.txt", planning.TodoPending)))},
		scripted.Turn{Text: "a is done."},
		scripted.Turn{Calls: scripted.Calls(write("b.txt", "b"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted), todo("2", "create b.txt", planning.TodoCompleted)))},
		scripted.Turn{Text: "b is done."},
	)
	var asked []string
	round := 0
	for ev := range eng.Approve(context.Background(), planning.ModeDefault) {
		switch ev := ev.(type) {
		case agent.ExecRound:
			round = ev.Round
		case agent.ToolCall:
			if round == 1 {
				eng.SetMode(planning.ModeAutoEdit)
			}
		case *agent.ApprovalRequest:
			asked = append(asked, ev.Call.Name)
			ev.Respond(agent.AllowOnce, "")
		case agent.Done:
			if ev.Status != agent.RunCompleted {
				t.Fatalf("execution ended %s: %v", ev.Status, ev.Err)
			}
		}
	}
	if len(asked) != 1 || asked[0] != "write_file" || round != 2 {
		t.Fatalf("asked about %v in %d rounds; want the second round's write only", asked, round)
	}
}
