package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

func submitCall(title string, steps ...string) llm.ToolCall {
	return scripted.Call(planning.SubmitPlanName, map[string]any{
		"title": title, "content": "## Approach\nDo it step by step.", "steps": steps})
}

func TestPlanModeHidesAndRefusesWriteTools(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(write("evil.txt", "pwned"), scripted.Call("bash", map[string]any{"command": "echo x > evil2.txt"}))},
		scripted.Turn{Text: "I can only read here."},
	)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	evs := drain(t, eng.Run(context.Background(), "change things"))
	wantDone(t, evs, agent.RunCompleted)

	req := h.p.Requests()[0]
	names := toolNames(req)
	for _, hidden := range []string{"write_file", "edit_file"} {
		if slices.Contains(names, hidden) {
			t.Errorf("Plan-mode request offers %s: %v", hidden, names)
		}
	}
	for _, shown := range []string{"read_file", "todo_write", "submit_plan", "bash"} {
		if !slices.Contains(names, shown) {
			t.Errorf("Plan-mode request lacks %s: %v", shown, names)
		}
	}
	if !strings.Contains(req.Messages[0].Content, "change things") || req.Messages[0].Content == "change things" {
		t.Errorf("the prompt was not wrapped for Plan mode: %q", req.Messages[0].Content)
	}
	for _, r := range resultsOf(evs) {
		if !r.IsError {
			t.Errorf("%s ran in Plan mode: %s", r.Name, r.Output)
		}
	}
	for _, f := range []string{"evil.txt", "evil2.txt"} {
		if _, ok := h.file(f); ok {
			t.Errorf("%s exists", f)
		}
	}
}

func TestSetModeDoesNotAffectARunningLoop(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("list_files", nil))},
		scripted.Turn{Text: "planned", Match: scripted.NoTool("write_file")},
		scripted.Turn{Text: "now I may write", Match: scripted.HasTool("write_file")},
	)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	var evs []agent.Event
	for ev := range eng.Run(context.Background(), "plan it") {
		evs = append(evs, ev)
		if _, ok := ev.(agent.ToolCall); ok {
			eng.SetMode(planning.ModeDefault) // as the TUI's Shift+Tab would, mid-run
		}
	}
	wantDone(t, evs, agent.RunCompleted)
	if eng.Mode() != planning.ModeDefault {
		t.Fatalf("Mode = %s", eng.Mode())
	}
	wantDone(t, drain(t, eng.Run(context.Background(), "go")), agent.RunCompleted)
}

func TestSubmitPlanEndsTheLoop(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Text: "Here is my plan.", Calls: scripted.Calls(
			submitCall("Add a greeting", "write hello.txt", "check it"),
			read("README"), // after submit_plan in the same message: not run
		)},
		scripted.Turn{Text: "this turn must never be played"},
	)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	evs := drain(t, eng.Run(context.Background(), "plan a greeting"))
	wantDone(t, evs, agent.RunAwaitingApproval)
	if n := len(h.p.Requests()); n != 1 {
		t.Fatalf("the model was called %d times after submit_plan", n)
	}
	plans := ofType[agent.PlanSubmitted](evs)
	if len(plans) != 1 || plans[0].Plan.Title != "Add a greeting" || len(plans[0].Plan.Steps) != 2 {
		t.Fatalf("PlanSubmitted = %+v", plans)
	}
	if todos := ofType[agent.Todos](evs); len(todos) != 1 || len(todos[0].Items) != 2 {
		t.Errorf("Todos = %+v", todos)
	}
	if eng.Status() != planning.StatusAwaitingApproval || eng.Plan() == nil {
		t.Errorf("status %s, plan %+v", eng.Status(), eng.Plan())
	}
	res := resultsOf(evs)
	if len(res) != 2 || res[0].IsError || !res[1].IsError || !strings.Contains(res[1].Output, "not run") {
		t.Errorf("results = %+v", res)
	}
	// A later process sees the pending plan.
	again := h.engine(agent.WithSession(eng.SessionID()))
	if again.Status() != planning.StatusAwaitingApproval || again.Plan().Title != "Add a greeting" || len(again.Todos()) != 2 {
		t.Errorf("reloaded: status %s, plan %+v, todos %+v", again.Status(), again.Plan(), again.Todos())
	}
}

func TestFallbackPlan(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(todoCall(
			todo("1", "write the parser", planning.TodoPending),
			todo("2", "test the parser", planning.TodoPending)))},
		scripted.Turn{Text: "Parser plan\n\nFirst the parser, then its tests."},
	)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	evs := drain(t, eng.Run(context.Background(), "plan a parser"))
	wantDone(t, evs, agent.RunAwaitingApproval)
	plans := ofType[agent.PlanSubmitted](evs)
	if len(plans) != 1 || !strings.Contains(plans[0].Plan.Title, "Parser plan") {
		t.Fatalf("PlanSubmitted = %+v", plans)
	}
	if eng.Status() != planning.StatusAwaitingApproval {
		t.Errorf("status = %s", eng.Status())
	}
}

// Keeping a plan "refining" and ending the run without a new submit_plan
// must not replace the plan's title and content with the model's reply.
func TestRefiningWithoutResubmitKeepsThePlan(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(submitCall("Parser plan", "write the parser", "test the parser"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(
			todo("1", "write the parser", planning.TodoPending),
			todo("2", "test the parser", planning.TodoPending),
			todo("3", "document the parser", planning.TodoPending)))},
		scripted.Turn{Text: "Still the same plan, with docs added."},
	)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	wantDone(t, drain(t, eng.Run(context.Background(), "plan a parser")), agent.RunAwaitingApproval)
	evs := drain(t, eng.Run(context.Background(), "also document it"))
	wantDone(t, evs, agent.RunAwaitingApproval)
	p := eng.Plan()
	if p == nil || p.Title != "Parser plan" || len(p.Steps) != 3 || p.Steps[2] != "document the parser" {
		t.Fatalf("plan after refining = %+v", p)
	}
}

func TestNoFallbackWithoutActiveTodos(t *testing.T) {
	h := newHarness(t, scripted.Turn{Text: "Just an answer."})
	eng := h.engine(agent.WithMode(planning.ModePlan))
	wantDone(t, drain(t, eng.Run(context.Background(), "what is this?")), agent.RunCompleted)
	if eng.Status() != planning.StatusIdle {
		t.Errorf("status = %s", eng.Status())
	}
}

func TestEvidenceGateAcrossAContinuationRun(t *testing.T) {
	t.Run("no work since the last todo_write", func(t *testing.T) {
		h := newHarness(t,
			scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "write a.txt", planning.TodoInProgress)))},
			scripted.Turn{Text: "started"},
			// The next process claims completion without doing anything.
			scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "write a.txt", planning.TodoCompleted)))},
			scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))},
			scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "write a.txt", planning.TodoCompleted)))},
			scripted.Turn{Text: "done"},
		)
		first := h.engine()
		wantDone(t, drain(t, first.Run(context.Background(), "start")), agent.RunCompleted)

		second := h.engine(agent.WithSession(first.SessionID()))
		evs := drain(t, second.Run(context.Background(), "continue"))
		wantDone(t, evs, agent.RunCompleted)
		res := resultsOf(evs)
		if len(res) != 3 || !res[0].IsError || res[1].IsError || res[2].IsError {
			t.Fatalf("results = %+v; want the claim refused, the write done, then the claim accepted", res)
		}
		if got := second.Todos(); got[0].Status != planning.TodoCompleted {
			t.Errorf("todos = %+v", got)
		}
	})
	t.Run("work before the restart counts", func(t *testing.T) {
		h := newHarness(t,
			scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "write a.txt", planning.TodoInProgress)))},
			scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))},
			scripted.Turn{Text: "written"},
			scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "write a.txt", planning.TodoCompleted)))},
			scripted.Turn{Text: "done"},
		)
		first := h.engine()
		wantDone(t, drain(t, first.Run(context.Background(), "start")), agent.RunCompleted)
		second := h.engine(agent.WithSession(first.SessionID()))
		evs := drain(t, second.Run(context.Background(), "continue"))
		wantDone(t, evs, agent.RunCompleted)
		if res := resultsOf(evs); len(res) != 1 || res[0].IsError {
			t.Fatalf("results = %+v; the evidence counter was not restored", res)
		}
	})
}

// planThenApprove runs a Plan-mode turn that submits steps and returns the
// engine, awaiting approval.
func planned(t *testing.T, h *harness, steps ...string) *agent.Engine {
	t.Helper()
	h.p.Add(scripted.Turn{Calls: scripted.Calls(submitCall("Greeting files", steps...))})
	eng := h.engine(agent.WithMode(planning.ModePlan))
	wantDone(t, drain(t, eng.Run(context.Background(), "plan the greeting files")), agent.RunAwaitingApproval)
	return eng
}

func TestApproveExecutesToCompletion(t *testing.T) {
	h := newHarness(t)
	eng := planned(t, h, "create a.txt", "create b.txt")
	h.p.Add(
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoInProgress), todo("2", "create b.txt", planning.TodoPending))),
			Match: scripted.All(scripted.HasTool("write_file"), scripted.LastUserContains(planning.ExecPrompt[:20]))},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted), todo("2", "create b.txt", planning.TodoInProgress)))},
		scripted.Turn{Calls: scripted.Calls(write("b.txt", "b"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted), todo("2", "create b.txt", planning.TodoCompleted)))},
		scripted.Turn{Text: "Both files exist."},
	)
	// Approve from a new process, as `run --resume ID --approve auto` does
	// after `run --plan --approve never`.
	eng = h.engine(agent.WithSession(eng.SessionID()))
	evs := drain(t, eng.Approve(context.Background(), planning.ModeDefault))
	wantDone(t, evs, agent.RunCompleted)

	approved := ofType[agent.Approved](evs)
	if len(approved) != 1 || approved[0].TaskDir == "" {
		t.Fatalf("Approved = %+v", approved)
	}
	dir := approved[0].TaskDir
	if !strings.HasPrefix(dir, filepath.Join(h.dir, ".harness9", "tasks")) {
		t.Errorf("task dir %s is not under the workdir's .harness9/tasks", dir)
	}
	if rounds := ofType[agent.ExecRound](evs); len(rounds) != 1 || rounds[0].Total != 2 {
		t.Errorf("ExecRound = %+v", rounds)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "PLAN.md")); err != nil || !strings.Contains(string(b), "Greeting files") {
		t.Errorf("PLAN.md = %q, %v", b, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "TODO.md"))
	if err != nil {
		t.Fatal(err)
	}
	var items int
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "- [") {
			items++
			if !strings.HasPrefix(line, "- [x]") {
				t.Errorf("TODO.md item not checked: %q", line)
			}
		}
	}
	if items != 2 {
		t.Errorf("TODO.md has %d items:\n%s", items, b)
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, ok := h.file(f); !ok {
			t.Errorf("%s was not written", f)
		}
	}
	if eng.Status() != planning.StatusIdle || eng.TaskDir() != dir || eng.Mode() != planning.ModeDefault {
		t.Errorf("status %s, task dir %q, mode %s", eng.Status(), eng.TaskDir(), eng.Mode())
	}
	// Nothing is pending any more.
	if evs := drain(t, eng.Approve(context.Background(), planning.ModeDefault)); doneOf(evs).Status != agent.RunError {
		t.Errorf("second Approve ended %s", doneOf(evs).Status)
	}
}

func TestStallAfterThreeRoundsWithoutProgress(t *testing.T) {
	h := newHarness(t)
	eng := planned(t, h, "one", "two", "three", "four")
	// Every round flips one more item to in_progress and stops: the pending
	// count falls each round, but nothing is ever completed.
	flip := func(n int) scripted.Turn {
		items := []planning.TodoItem{todo("1", "one", planning.TodoPending), todo("2", "two", planning.TodoPending),
			todo("3", "three", planning.TodoPending), todo("4", "four", planning.TodoPending)}
		for i := range n {
			items[i].Status = planning.TodoInProgress
		}
		return scripted.Turn{Calls: scripted.Calls(todoCall(items...))}
	}
	for n := 1; n <= 4; n++ {
		h.p.Add(flip(n), scripted.Turn{Text: "working on it"})
	}
	evs := drain(t, eng.Approve(context.Background(), planning.ModeDefault))
	wantDone(t, evs, agent.RunStalled)
	if rounds := ofType[agent.ExecRound](evs); len(rounds) != 3 {
		t.Errorf("%d rounds ran, want exactly 3", len(rounds))
	}
	if st := ofType[agent.Stalled](evs); len(st) != 1 || st[0].Rounds != 3 {
		t.Errorf("Stalled = %+v", st)
	}
	if h.p.Remaining() != 2 {
		t.Errorf("%d turns left, want 2 (the fourth round never ran)", h.p.Remaining())
	}
	reloaded := h.engine(agent.WithSession(eng.SessionID()))
	if reloaded.Status() != planning.StatusStalled {
		t.Errorf("stored status = %s", reloaded.Status())
	}

	// Continue picks the stalled plan up again, now making progress.
	h.p.Add(
		scripted.Turn{Calls: scripted.Calls(scripted.Call("list_files", nil)), Match: scripted.LastUserContains(planning.ExecContinuePrompt[:20])},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "one", planning.TodoCompleted), todo("2", "two", planning.TodoCancelled),
			todo("3", "three", planning.TodoCancelled), todo("4", "four", planning.TodoCancelled)))},
		scripted.Turn{Text: "done"},
	)
	evs = drain(t, reloaded.Continue(context.Background()))
	wantDone(t, evs, agent.RunCompleted)
}

func TestAutoEditAsksBeforeEachEdit(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(write("yes.txt", "ok"))},
		scripted.Turn{Calls: scripted.Calls(write("no.txt", "nope"))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("edit_file", map[string]any{"path": "yes.txt", "old_string": "ok", "new_string": "fine"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("edit_file", map[string]any{"path": "yes.txt", "old_string": "fine", "new_string": "great"}))},
		scripted.Turn{Text: "done", Match: scripted.LastToolResultContains("")},
	)
	eng := h.engine(agent.WithMode(planning.ModeAutoEdit))
	var asked []*agent.ApprovalRequest
	var evs []agent.Event
	for ev := range eng.Run(context.Background(), "edit") {
		evs = append(evs, ev)
		req, ok := ev.(*agent.ApprovalRequest)
		if !ok {
			continue
		}
		asked = append(asked, req)
		switch len(asked) {
		case 1:
			req.Respond(agent.AllowOnce, "")
		case 2:
			go req.Respond(agent.Deny, "wrong file") // answers may come from another goroutine
		case 3:
			req.Respond(agent.AllowSession, "")
		}
	}
	wantDone(t, evs, agent.RunCompleted)
	if len(asked) != 3 {
		t.Fatalf("asked %d times, want 3 (the second edit_file was allowed for the session)", len(asked))
	}
	if !strings.Contains(asked[0].Preview, "yes.txt") || !strings.Contains(asked[2].Preview, "-ok") || !strings.Contains(asked[2].Preview, "+fine") {
		t.Errorf("previews = %q / %q", asked[0].Preview, asked[2].Preview)
	}
	if got, _ := h.file("yes.txt"); got != "great" {
		t.Errorf("yes.txt = %q", got)
	}
	if _, ok := h.file("no.txt"); ok {
		t.Error("a denied write ran")
	}
	res := resultsOf(evs)
	if !res[1].IsError || res[1].Output != "the user denied this call: wrong file" {
		t.Errorf("denied result = %+v", res[1])
	}
}

func TestUnansweredApprovalIsCancelled(t *testing.T) {
	h := newHarness(t, scripted.Turn{Calls: scripted.Calls(write("x.txt", "x"))})
	eng := h.engine(agent.WithMode(planning.ModeAutoEdit))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs []agent.Event
	for ev := range eng.Run(ctx, "write") {
		evs = append(evs, ev)
		if _, ok := ev.(*agent.ApprovalRequest); ok {
			cancel() // the user closed the dialog by pressing Ctrl+C
		}
	}
	wantDone(t, evs, agent.RunCancelled)
	if _, ok := h.file("x.txt"); ok {
		t.Error("the unanswered write ran")
	}
}

func TestCancelPlan(t *testing.T) {
	h := newHarness(t)
	eng := planned(t, h, "a", "b")
	if err := eng.CancelPlan(); err != nil {
		t.Fatal(err)
	}
	if eng.Status() != planning.StatusIdle || eng.Plan() != nil || len(eng.Todos()) != 0 {
		t.Errorf("after CancelPlan: %s %+v %+v", eng.Status(), eng.Plan(), eng.Todos())
	}
	if err := eng.CancelPlan(); err == nil {
		t.Error("cancelling twice succeeded")
	}
	if again := h.engine(agent.WithSession(eng.SessionID())); again.Status() != planning.StatusIdle {
		t.Errorf("stored status = %s", again.Status())
	}
}

func TestApproveWithConfirmEditsAsksForEachWrite(t *testing.T) {
	h := newHarness(t)
	eng := planned(t, h, "create a.txt")
	h.p.Add(
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoInProgress)))},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted)))},
		scripted.Turn{Text: "done"},
	)
	var asked int
	var evs []agent.Event
	for ev := range eng.Approve(context.Background(), planning.ModeAutoEdit) {
		evs = append(evs, ev)
		if req, ok := ev.(*agent.ApprovalRequest); ok {
			asked++
			req.Respond(agent.AllowOnce, "")
		}
	}
	checkFraming(t, evs)
	wantDone(t, evs, agent.RunCompleted)
	if asked != 1 || eng.Mode() != planning.ModeAutoEdit {
		t.Errorf("asked %d times, mode %s", asked, eng.Mode())
	}
	// The stream's SessionStarted reports the mode the execution runs in,
	// so a UI shows AutoEdit during execution, not the Plan mode it left.
	if st := ofType[agent.SessionStarted](evs); len(st) == 0 || st[0].Mode != planning.ModeAutoEdit {
		t.Errorf("SessionStarted = %+v, want mode auto_edit", st)
	}
	if _, ok := h.file("a.txt"); !ok {
		t.Error("the approved write did not run")
	}
}

// A plan that was approved and carried out is history: a later Plan run in
// the same session that ends with a todo list but no submit_plan makes a
// new plan from its own reply, not one titled after the finished plan.
func TestFallbackAfterAFinishedPlanDoesNotReuseItsTitle(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(submitCall("Parser plan", "write the parser"))},
		// Execution: real work, then the step is completed.
		scripted.Turn{Calls: scripted.Calls(write("parser.go", "package p"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "write the parser", planning.TodoCompleted)))},
		scripted.Turn{Text: "Parser written."},
		// A new Plan run in the same session: todos, no submit_plan.
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "add a cache", planning.TodoPending)))},
		scripted.Turn{Text: "Cache plan\nAdd an LRU cache in front of the parser."},
	)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	wantDone(t, drain(t, eng.Run(context.Background(), "plan a parser")), agent.RunAwaitingApproval)
	wantDone(t, drain(t, eng.Approve(context.Background(), planning.ModeDefault)), agent.RunCompleted)
	if eng.Status() != planning.StatusIdle {
		t.Fatalf("status after execution = %s", eng.Status())
	}
	eng.SetMode(planning.ModePlan)
	wantDone(t, drain(t, eng.Run(context.Background(), "plan a cache")), agent.RunAwaitingApproval)
	p := eng.Plan()
	if p == nil || p.Title != "Cache plan" || !strings.Contains(p.Content, "LRU") {
		t.Fatalf("fallback plan after a finished one = %+v, want the title and content of the new reply", p)
	}
}

// recordingWriter is a user's own planning.PlanWriter.
type recordingWriter struct {
	lists [][]planning.TodoItem
	err   error
}

func (w *recordingWriter) Write(todos []planning.TodoItem) error {
	w.lists = append(w.lists, todos)
	return w.err
}

// A library user plugs a planning.PlanWriter into the engine: it receives
// every list todo_write and submit_plan store, and its failure, like the
// plan files', never reaches the model.
func TestWithPlanWriterReceivesEveryList(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "look around", planning.TodoInProgress)))},
		scripted.Turn{Calls: scripted.Calls(submitCall("Plan", "step one", "step two"))},
	)
	good, bad := &recordingWriter{}, &recordingWriter{err: errors.New("tracker unreachable")}
	eng := h.engine(agent.WithMode(planning.ModePlan), agent.WithPlanWriter(good), agent.WithPlanWriter(bad))
	evs := drain(t, eng.Run(context.Background(), "plan"))
	wantDone(t, evs, agent.RunAwaitingApproval)
	if len(good.lists) != 2 || len(bad.lists) != 2 {
		t.Fatalf("writers got %d and %d lists, want 2 each", len(good.lists), len(bad.lists))
	}
	if got := good.lists[1]; len(got) != 2 || got[1].Content != "step two" || got[1].Status != planning.TodoPending {
		t.Errorf("list after submit_plan = %+v", got)
	}
	for _, r := range resultsOf(evs) {
		if r.IsError || strings.Contains(r.Output, "unreachable") {
			t.Errorf("%s result shows the writer's failure: %+v", r.Name, r)
		}
	}
}
