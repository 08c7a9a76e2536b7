package durable_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/memstore"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// engines opens real engines on a shared in-memory store, as a worker
// does with its SQLite store.
type engines struct {
	t     *testing.T
	dir   string
	store session.Store
	model llm.Provider
	hooks agent.Hooks // nil: none
	// rules gives each engine permission rules of its own, empty, as a
	// worker whose configuration was read before the session's answers.
	rules bool
}

func (e *engines) engine(_ context.Context, id string, _ durable.Settings) (*agent.Engine, error) {
	ws, err := tool.NewWorkspace(e.dir)
	if err != nil {
		return nil, err
	}
	opts := []agent.Option{agent.WithWorkspace(ws), agent.WithStore(e.store), agent.WithTools(builtin.All(ws)...), agent.WithSession(id)}
	if e.hooks != nil {
		opts = append(opts, agent.WithHooks(e.hooks))
	}
	if e.rules {
		opts = append(opts, agent.WithPermissions(permission.New(e.dir)))
	}
	return agent.New(e.model, opts...)
}

func newSession(t *testing.T, model llm.Provider) (*engines, string) {
	t.Helper()
	dir := t.TempDir()
	st := memstore.New()
	s := &session.Session{Workdir: dir, Title: "t"}
	if err := st.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return &engines{t: t, dir: dir, store: st, model: model}, s.ID
}

func todos(statuses ...string) map[string]any {
	var items []map[string]string
	for i, s := range statuses {
		items = append(items, map[string]string{"id": string(rune('1' + i)), "content": "step " + string(rune('a'+i)), "status": s})
	}
	return map[string]any{"todos": items}
}

func write(path, content string) llm.ToolCall {
	return scripted.Call("write_file", map[string]string{"path": path, "content": content})
}

var submit = scripted.Call("submit_plan", map[string]any{"title": "Two files", "content": "Write a, then b.", "steps": []string{"step a", "step b"}})

func newEnv(t *testing.T, e *engines) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	durable.Register(env, durable.NewActivities(durable.EnginesFunc(e.engine)))
	return env
}

func result(t *testing.T, env *testsuite.TestWorkflowEnvironment) durable.Result {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var r durable.Result
	if err := env.GetWorkflowResult(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

func types(r durable.Result) string {
	var out []string
	for _, e := range r.Events {
		out = append(out, e.Type)
	}
	return strings.Join(out, " ")
}

func TestPlanWaitsForReviewSignalThenExecutes(t *testing.T) {
	model := scripted.NewHistory(
		scripted.Turn{Calls: scripted.Calls(submit)},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "A"), scripted.Call("todo_write", todos("completed", "in_progress")))},
		scripted.Turn{Calls: scripted.Calls(write("b.txt", "B"), scripted.Call("todo_write", todos("completed", "completed")))},
		scripted.Turn{Text: "Both written."},
	)
	e, id := newSession(t, model)
	env := newEnv(t, e)
	var waited durable.Status
	// A plan can wait for days: the review arrives three days later.
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(durable.QueryStatus, 0)
		if err != nil {
			t.Fatal(err)
		}
		_ = v.Get(&waited)
		env.SignalWorkflow(durable.SignalReview, durable.Review{Choice: planning.ReviewApprove})
	}, 72*time.Hour)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "write two files", Mode: planning.ModePlan})
	r := result(t, env)

	if !waited.Waiting || waited.Phase != planning.StatusAwaitingApproval {
		t.Fatalf("before the signal: waiting=%v phase=%s, want a workflow waiting for review", waited.Waiting, waited.Phase)
	}
	if r.Status != agent.RunCompleted {
		t.Fatalf("status %s (%s), want completed; events: %s", r.Status, r.Error, types(r))
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
	st, err := e.store.LoadState(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if done, active, total := planning.Progress(st.Todos); done != 2 || active != 0 || total != 2 || st.Status != planning.StatusIdle {
		t.Fatalf("stored todos %d/%d (active %d), status %s; want 2/2 and idle", done, total, active, st.Status)
	}
	if got := types(r); !strings.Contains(got, "plan") || !strings.Contains(got, "approved") || !strings.Contains(got, "exec_round") {
		t.Fatalf("events %q lack plan/approved/exec_round", got)
	}
}

func TestStagnationStopsExecutionInWorkflowCode(t *testing.T) {
	// The model keeps working without ever completing an item.
	turns := []scripted.Turn{{Calls: scripted.Calls(submit)}}
	for range 10 {
		turns = append(turns, scripted.Turn{Calls: scripted.Calls(scripted.Call("list_files", map[string]any{}))}, scripted.Turn{Text: "still looking"})
	}
	e, id := newSession(t, scripted.NewHistory(turns...))
	env := newEnv(t, e)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "p", Mode: planning.ModePlan,
		AutoApprove: true, StallThreshold: 2})
	r := result(t, env)
	if r.Status != agent.RunStalled {
		t.Fatalf("status %s (%s), want stalled; events %s", r.Status, r.Error, types(r))
	}
	if n := strings.Count(types(r), "exec_round"); n != 2 {
		t.Fatalf("%d rounds, want 2 (the stall threshold)", n)
	}
	st, _ := e.store.LoadState(context.Background(), id)
	if st.Status != planning.StatusStalled {
		t.Fatalf("stored status %s, want stalled", st.Status)
	}
}

func TestRefineThenCancel(t *testing.T) {
	model := scripted.NewHistory(
		scripted.Turn{Calls: scripted.Calls(submit)},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{"title": "Revised", "content": "c", "steps": []string{"only"}})),
			Match: scripted.LastUserContains("smaller")},
	)
	e, id := newSession(t, model)
	env := newEnv(t, e)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(durable.SignalReview, durable.Review{Choice: planning.ReviewRefine, Feedback: "make it smaller"})
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(durable.SignalReview, durable.Review{Choice: planning.ReviewCancel})
	}, 2*time.Hour)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "p", Mode: planning.ModePlan})
	r := result(t, env)
	if r.Status != agent.RunCompleted || strings.Count(types(r), "plan") != 2 {
		t.Fatalf("status %s, events %s; want two plans then completed", r.Status, types(r))
	}
	st, _ := e.store.LoadState(context.Background(), id)
	if st.Status != planning.StatusIdle || st.Plan != nil || len(st.Todos) != 0 {
		t.Fatalf("after cancel: status %s plan %v todos %v; want idle, no plan, no todos", st.Status, st.Plan, st.Todos)
	}
}

func TestCancelWhileWaitingEndsCancelledAndKeepsThePlan(t *testing.T) {
	e, id := newSession(t, scripted.NewHistory(scripted.Turn{Calls: scripted.Calls(submit)}))
	env := newEnv(t, e)
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Hour)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "p", Mode: planning.ModePlan})
	r := result(t, env)
	if r.Status != agent.RunCancelled {
		t.Fatalf("status %s, want cancelled", r.Status)
	}
	st, _ := e.store.LoadState(context.Background(), id)
	if st.Status != planning.StatusAwaitingApproval {
		t.Fatalf("stored status %s, want the plan still awaiting approval", st.Status)
	}
}

func TestUsageErrorIsNotRetried(t *testing.T) {
	e, _ := newSession(t, scripted.NewHistory(scripted.Turn{Text: "hi"}))
	env := newEnv(t, e)
	starts := 0
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { starts++ })
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: "no-such-session", Prompt: "p"})
	r := result(t, env)
	if starts != 1 {
		t.Fatalf("the activity started %d times, want once: a missing session is not retried", starts)
	}
	if r.Status != agent.RunError || !strings.Contains(r.Error, "not found") {
		t.Fatalf("status %s error %q; want an error naming the missing session", r.Status, r.Error)
	}
}

// update records how one review update ended.
type update struct {
	rejected, failed error
	at               any
	completed        bool
}

func (u *update) callbacks() *testsuite.TestUpdateCallback {
	return &testsuite.TestUpdateCallback{
		OnAccept:   func() {},
		OnReject:   func(err error) { u.rejected = err },
		OnComplete: func(v any, err error) { u.completed, u.at, u.failed = true, v, err },
	}
}

// Two reviewers answer the same plan at once (an approval and a
// refinement in the same instant): the workflow takes exactly one; the
// other is refused and changes nothing. A review sent before any plan
// waits is refused too.
func TestReviewUpdateTakesExactlyOneAnswer(t *testing.T) {
	model := scripted.NewHistory(
		scripted.Turn{Calls: scripted.Calls(submit)},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "A"), scripted.Call("todo_write", todos("completed", "in_progress")))},
		scripted.Turn{Calls: scripted.Calls(write("b.txt", "B"), scripted.Call("todo_write", todos("completed", "completed")))},
		scripted.Turn{Text: "Both written."},
	)
	e, id := newSession(t, model)
	env := newEnv(t, e)
	var early, first, second update
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(durable.UpdateReview, "early", early.callbacks(), durable.Review{Choice: planning.ReviewApprove})
	}, 0)
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(durable.UpdateReview, "approve", first.callbacks(), durable.Review{Choice: planning.ReviewApprove})
		env.UpdateWorkflow(durable.UpdateReview, "refine", second.callbacks(), durable.Review{Choice: planning.ReviewRefine, Feedback: "smaller"})
	}, time.Hour)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "write two files", Mode: planning.ModePlan})
	r := result(t, env)
	if early.rejected == nil && early.failed == nil {
		t.Error("a review before the plan existed was accepted")
	}
	if first.rejected != nil || first.failed != nil || !first.completed {
		t.Fatalf("the first review: rejected %v, failed %v", first.rejected, first.failed)
	}
	if second.rejected == nil && second.failed == nil {
		t.Fatal("the second, concurrent review was accepted too")
	}
	if r.Status != agent.RunCompleted || strings.Count(types(r), "plan") != 1 || strings.Count(types(r), "approved") != 1 {
		t.Fatalf("status %s, events %s; want one plan, one approval, completed", r.Status, types(r))
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); err != nil {
			t.Errorf("%s was not written: %v", f, err)
		}
	}
}

// A plan stored awaiting approval, with no workflow waiting for it, is
// answered by a workflow started with the review in its input.
func TestStartWithAnswerRefinesTheStoredPlan(t *testing.T) {
	model := scripted.NewHistory(
		scripted.Turn{Calls: scripted.Calls(submit)},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{"title": "Revised", "content": "c", "steps": []string{"only"}})),
			Match: scripted.LastUserContains("smaller")},
	)
	e, id := newSession(t, model)
	env := newEnv(t, e)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "p", Mode: planning.ModePlan, AutoApprove: false})
	// The first workflow is cancelled while it waits: the plan stays stored.
	env2 := newEnv(t, e)
	env2.RegisterDelayedCallback(env2.CancelWorkflow, time.Hour)
	env2.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Review: true,
		Answer: &durable.Review{Choice: planning.ReviewRefine, Feedback: "make it smaller"}})
	r := result(t, env2)
	if r.Status != agent.RunCancelled || strings.Count(types(r), "plan") != 1 {
		t.Fatalf("status %s, events %s; want the revised plan, then cancelled while waiting", r.Status, types(r))
	}
	st, _ := e.store.LoadState(context.Background(), id)
	if st.Plan == nil || st.Plan.Title != "Revised" || st.Status != planning.StatusAwaitingApproval {
		t.Fatalf("stored plan %v status %s; want the revised plan awaiting approval", st.Plan, st.Status)
	}
}

// A long execution continues as new right after a round that completed
// an item: the new run resumes the execution from the store, numbers its
// events and rounds after the old run's, and finishes the plan; nothing
// is done twice.
func TestLongExecutionContinuesAsNew(t *testing.T) {
	model := scripted.NewHistory(
		scripted.Turn{Calls: scripted.Calls(submit)},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "A"), scripted.Call("todo_write", todos("completed", "in_progress")))},
		scripted.Turn{Text: "a done."},
		scripted.Turn{Calls: scripted.Calls(write("b.txt", "B"), scripted.Call("todo_write", todos("completed", "completed")))},
		scripted.Turn{Text: "Both written."},
	)
	e, id := newSession(t, model)
	env := newEnv(t, e)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "write two files", Mode: planning.ModePlan,
		AutoApprove: true, ContinueAfter: 3})
	env2, next := continueWith(t, e, env)
	if !next.Continue || next.Prompt != "" || len(next.Todos) != 2 || next.RoundsDone != 1 || next.EventBase == 0 || next.HistoryLen == 0 || next.ContinueAfter != 3 {
		t.Fatalf("next input %+v; want a continuation after one round with the event base and history length", next)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "b.txt")); err == nil {
		t.Fatal("b.txt was written before the continuation")
	}

	env2.ExecuteWorkflow(durable.SessionWorkflow, next)
	r := result(t, env2)
	var st durable.Status
	if v, err := env2.QueryWorkflow(durable.QueryStatus, 0); err != nil || v.Get(&st) != nil {
		t.Fatalf("query the new run: %v", err)
	}
	if r.Status != agent.RunCompleted || r.From < next.EventBase {
		t.Fatalf("status %s from %d (base %d), events %s", r.Status, r.From, next.EventBase, types(r))
	}
	if st.Base != next.EventBase || st.Next < next.EventBase {
		t.Fatalf("query from 0 on the new run: base %d next %d, want base %d", st.Base, st.Next, next.EventBase)
	}
	var round agent.ExecRound
	for _, env := range r.Events {
		if env.Type == "exec_round" {
			ev, _ := env.Decode()
			round = ev.(agent.ExecRound)
		}
	}
	if round.Round != 2 {
		t.Fatalf("the new run's round is numbered %d, want 2; events %s", round.Round, types(r))
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	stored, _ := e.store.LoadState(context.Background(), id)
	if done, _, total := planning.Progress(stored.Todos); done != 2 || total != 2 || stored.Status != planning.StatusIdle {
		t.Fatalf("stored %d/%d status %s", done, total, stored.Status)
	}
	msgs, _ := e.store.Messages(context.Background(), id)
	results := map[string]int{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID]++
		}
	}
	for call, n := range results {
		if n != 1 {
			t.Errorf("call %s has %d results", call, n)
		}
	}
}

// continueWith returns a new environment for the run env's run continued
// as, and that run's input.
func continueWith(t *testing.T, e *engines, env *testsuite.TestWorkflowEnvironment) (*testsuite.TestWorkflowEnvironment, durable.Input) {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("the run did not end")
	}
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("the run ended with %v, want continue-as-new", err)
	}
	var next durable.Input
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	return newEnv(t, e), next
}

// recHooks records the hook events the steps raise; it blocks the first
// stop, and any prompt that says "forbidden".
type recHooks struct {
	mu     sync.Mutex
	events []hook.Event
}

func (h *recHooks) Run(_ context.Context, ev hook.Event) hook.Outcome {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, ev)
	stops := 0
	for _, e := range h.events {
		if e.Name == hook.Stop {
			stops++
		}
	}
	switch {
	case ev.Name == hook.Stop && stops == 1:
		return hook.Outcome{Blocked: true, Reason: "run the tests first"}
	case ev.Name == hook.UserPromptSubmit && strings.Contains(ev.Prompt, "forbidden"):
		return hook.Outcome{Blocked: true, Reason: "not this prompt"}
	}
	return hook.Outcome{}
}

func (h *recHooks) named(n hook.Name) []hook.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []hook.Event
	for _, e := range h.events {
		if e.Name == n {
			out = append(out, e)
		}
	}
	return out
}

// The steps run the hooks a local run does: session_start (startup) and
// user_prompt_submit for the user's prompt and not for execution rounds'
// prompts; stop when the model stops calling tools, where a blocking stop
// hook makes the model go on and the next stop says so (stop_hook_active).
func TestWorkflowRunsSessionPromptAndStopHooks(t *testing.T) {
	model := scripted.NewHistory(
		scripted.Turn{Calls: scripted.Calls(submit)},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "A"), scripted.Call("todo_write", todos("completed", "in_progress")))},
		scripted.Turn{Calls: scripted.Calls(write("b.txt", "B"), scripted.Call("todo_write", todos("completed", "completed")))},
		scripted.Turn{Text: "Done?"},
		scripted.Turn{Text: "Tests pass; done."},
	)
	e, id := newSession(t, model)
	h := &recHooks{}
	e.hooks = h
	env := newEnv(t, e)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "write two files", Mode: planning.ModePlan, AutoApprove: true})
	r := result(t, env)
	if r.Status != agent.RunCompleted {
		t.Fatalf("status %s (%s), events %s", r.Status, r.Error, types(r))
	}
	if s := h.named(hook.SessionStart); len(s) != 1 || s[0].Source != "startup" || s[0].SessionID != id {
		t.Errorf("session_start hooks: %+v; want one, source startup", s)
	}
	if p := h.named(hook.UserPromptSubmit); len(p) != 1 || p[0].Prompt != "write two files" {
		t.Errorf("user_prompt_submit hooks: %+v; want one, for the user's prompt only", p)
	}
	stops := h.named(hook.Stop)
	if len(stops) != 2 || stops[0].StopHookActive || !stops[1].StopHookActive {
		t.Fatalf("stop hooks: %+v; want two, the second with stop_hook_active", stops)
	}
	msgs, _ := e.store.Messages(context.Background(), id)
	var sawNote, sawLast bool
	for _, m := range msgs {
		sawNote = sawNote || m.Role == llm.RoleUser && strings.Contains(m.Content, "run the tests first")
		sawLast = sawLast || m.Content == "Tests pass; done."
	}
	if !sawNote || !sawLast {
		t.Fatalf("the blocked stop did not make the model go on: note %v, last answer %v", sawNote, sawLast)
	}
	if !strings.Contains(types(r), "hook") {
		t.Errorf("the blocking stop hook was not reported; events %s", types(r))
	}
}

// A blocking user_prompt_submit hook stops the prompt before the model:
// nothing is stored, the workflow ends in error and says why.
func TestWorkflowUserPromptHookBlocks(t *testing.T) {
	e, id := newSession(t, scripted.NewHistory(scripted.Turn{Text: "should not be asked"}))
	e.hooks = &recHooks{}
	env := newEnv(t, e)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "a forbidden prompt"})
	r := result(t, env)
	if r.Status != agent.RunError || !strings.Contains(types(r), "error") || !strings.Contains(types(r), "hook") {
		t.Fatalf("status %s, events %s; want error with the hook's report", r.Status, types(r))
	}
	if msgs, _ := e.store.Messages(context.Background(), id); len(msgs) != 0 {
		t.Fatalf("stored %d messages after a blocked prompt", len(msgs))
	}
}
