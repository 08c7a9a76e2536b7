package durable_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

// asks returns the questions the workflow waits on now.
func asks(t *testing.T, env *testsuite.TestWorkflowEnvironment) []durable.Question {
	t.Helper()
	v, err := env.QueryWorkflow(durable.QueryStatus, 0)
	if err != nil {
		t.Fatal(err)
	}
	var st durable.Status
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	return st.Asks
}

// answer sends a permission answer and returns how the update ended.
func answer(env *testsuite.TestWorkflowEnvironment, id string, a durable.PermissionAnswer) *update {
	u := &update{}
	env.UpdateWorkflow(durable.UpdatePermission, id, u.callbacks(), a)
	return u
}

// refusedAs reports whether the update was refused with an application
// error of type typ.
func (u *update) refusedAs(typ string) bool {
	err := u.rejected
	if err == nil {
		err = u.failed
	}
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == typ
}

// toolResults maps each tool call id of the stored conversation to the
// results stored for it.
func toolResults(t *testing.T, e *engines, id string) map[string][]string {
	t.Helper()
	msgs, err := e.store.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			out[m.ToolCallID] = append(out[m.ToolCallID], m.Content)
		}
	}
	return out
}

// A plan approved with "confirm each edit" asks before each write, and
// the workflow waits: an answer arrives as an update, days later if need
// be, and is taken once; allow runs the call, deny refuses it with the
// reason the model then sees, and a question left unanswered past the ask
// timeout is refused with a message saying so. Each call gets one result.
func TestConfirmEachEditWaitsForAnswers(t *testing.T) {
	model := scripted.NewHistory(
		scripted.Turn{Calls: scripted.Calls(submit)},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "A"), write("b.txt", "B"), scripted.Call("todo_write", todos("completed", "in_progress")))},
		scripted.Turn{Calls: scripted.Calls(write("c.txt", "C"), scripted.Call("read_file", map[string]any{"path": "a.txt"}),
			scripted.Call("todo_write", todos("completed", "completed")))},
		scripted.Turn{Text: "Done, without b and c."},
	)
	e, id := newSession(t, model)
	env := newEnv(t, e)
	var review, early, first, again, unknown, second *update
	var seen [][]durable.Question
	env.RegisterDelayedCallback(func() {
		early = answer(env, "early", durable.PermissionAnswer{Ask: "call_2_1", Answer: "allow"})
		review = &update{}
		env.UpdateWorkflow(durable.UpdateReview, "review", review.callbacks(), durable.Review{Choice: planning.ReviewApproveConfirm})
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		q := asks(t, env)
		seen = append(seen, q)
		first = answer(env, "a1", durable.PermissionAnswer{Ask: q[0].ID, Answer: "allow"})
		again = answer(env, "a2", durable.PermissionAnswer{Ask: q[0].ID, Answer: "deny", Reason: "too late"})
		unknown = answer(env, "a3", durable.PermissionAnswer{Ask: "no-such-call", Answer: "allow"})
	}, 50*time.Hour) // two days later
	env.RegisterDelayedCallback(func() {
		q := asks(t, env)
		seen = append(seen, q)
		second = answer(env, "b", durable.PermissionAnswer{Ask: q[0].ID, Answer: "deny", Reason: "not b: c is enough"})
	}, 51*time.Hour)
	// c.txt's question is left to the ask timeout.
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "write files", Mode: planning.ModePlan,
		AskTimeout: 72 * time.Hour})
	r := result(t, env)

	if r.Status != agent.RunCompleted {
		t.Fatalf("status %s (%s), events %s", r.Status, r.Error, types(r))
	}
	if early == nil || !early.refusedAs(durable.ErrTypeNoQuestion) {
		t.Errorf("an answer before any question: %+v", early)
	}
	if review.rejected != nil || review.failed != nil {
		t.Fatalf("approve_confirm was refused: %v %v", review.rejected, review.failed)
	}
	if len(seen) != 2 || len(seen[0]) != 1 || seen[0][0].Tool != "write_file" || !strings.Contains(seen[0][0].Preview, "a.txt") ||
		len(seen[1]) != 1 || !strings.Contains(seen[1][0].Preview, "b.txt") || seen[0][0].Why == "" {
		t.Fatalf("questions seen: %+v", seen)
	}
	if first.rejected != nil || first.failed != nil || !first.completed {
		t.Fatalf("the first answer: %+v", first)
	}
	if !again.refusedAs(durable.ErrTypeAnswered) || !unknown.refusedAs(durable.ErrTypeNoQuestion) {
		t.Fatalf("a second answer: %+v; an answer to no question: %+v", again, unknown)
	}
	if second.rejected != nil || second.failed != nil {
		t.Fatalf("the denial: %+v", second)
	}
	if got, err := os.ReadFile(filepath.Join(e.dir, "a.txt")); err != nil || string(got) != "A" {
		t.Fatalf("a.txt: %q %v", got, err)
	}
	for _, f := range []string{"b.txt", "c.txt"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); err == nil {
			t.Errorf("%s was written without a yes", f)
		}
	}
	msgs, _ := e.store.Messages(context.Background(), id)
	results := toolResults(t, e, id)
	var denied, expired bool
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if n := len(results[c.ID]); n != 1 {
				t.Errorf("call %s (%s) has %d results", c.ID, c.Name, n)
			}
			res := strings.Join(results[c.ID], "")
			denied = denied || res == "the user denied this call: not b: c is enough"
			expired = expired || strings.Contains(res, "nobody answered the question within 72h0m0s")
		}
	}
	if !denied || !expired {
		t.Fatalf("the model did not see the denial (%v) or the timeout (%v): %v", denied, expired, results)
	}
	if got := types(r); strings.Count(got, "permission_ask") != 3 || strings.Count(got, "permission_answered") != 3 {
		t.Fatalf("events %s; want three questions, each settled once", got)
	}
}

// Cancelling the workflow while a question waits ends the asked call, and
// those after it, as a cancelled local run does; nothing is written.
func TestCancelWhileAQuestionWaits(t *testing.T) {
	model := scripted.NewHistory(scripted.Turn{Calls: scripted.Calls(write("a.txt", "A"), write("b.txt", "B"))})
	e, id := newSession(t, model)
	env := newEnv(t, e)
	env.RegisterDelayedCallback(func() {
		if len(asks(t, env)) != 1 {
			t.Error("no question waits")
		}
		env.CancelWorkflow()
	}, time.Hour)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "write", Mode: planning.ModeAutoEdit})
	r := result(t, env)
	if r.Status != agent.RunCancelled {
		t.Fatalf("status %s (%s)", r.Status, r.Error)
	}
	msgs, _ := e.store.Messages(context.Background(), id)
	calls := msgs[1].ToolCalls
	results := toolResults(t, e, id)
	if got := results[calls[0].ID]; len(got) != 1 || got[0] != "write_file was cancelled while waiting for the user's approval" {
		t.Fatalf("the asked call's result: %q", got)
	}
	if got := results[calls[1].ID]; len(got) != 1 || !strings.HasPrefix(got[0], "cancelled: the run was stopped") {
		t.Fatalf("the next call's result: %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "a.txt")); err == nil {
		t.Fatal("a.txt was written")
	}
}

// What an "always" answer allowed holds on the engines of later steps,
// which run on other workers (here: engines with rules of their own), and
// across continue-as-new: the second write of a.txt, in the run the
// execution continued as, is not asked.
func TestAlwaysAnswerHoldsAcrossStepsAndContinueAsNew(t *testing.T) {
	model := scripted.NewHistory(
		scripted.Turn{Calls: scripted.Calls(submit)},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "A"), scripted.Call("todo_write", todos("completed", "in_progress")))},
		scripted.Turn{Text: "a done."},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "A2"), scripted.Call("todo_write", todos("completed", "completed")))},
		scripted.Turn{Text: "Both done."},
	)
	e, id := newSession(t, model)
	e.rules = true
	env := newEnv(t, e)
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(durable.UpdateReview, "review", (&update{}).callbacks(), durable.Review{Choice: planning.ReviewApproveConfirm})
	}, time.Hour)
	env.RegisterDelayedCallback(func() {
		q := asks(t, env)
		if len(q) != 1 || len(q[0].Rules) != 1 || !strings.Contains(q[0].Rules[0], "a.txt") {
			t.Errorf("questions %+v; want one offering a rule for a.txt", q)
			return
		}
		answer(env, "always", durable.PermissionAnswer{Ask: q[0].ID, Answer: "always"})
	}, 2*time.Hour)
	env.ExecuteWorkflow(durable.SessionWorkflow, durable.Input{SessionID: id, Prompt: "write a twice", Mode: planning.ModePlan, ContinueAfter: 3})
	env2, next := continueWith(t, e, env)
	if len(next.Memo.Granted.Rules) != 1 {
		t.Fatalf("the continued run's memo %+v; want the always rule", next.Memo)
	}
	env2.ExecuteWorkflow(durable.SessionWorkflow, next)
	r := result(t, env2)
	if r.Status != agent.RunCompleted || strings.Contains(types(r), "permission_ask") {
		t.Fatalf("status %s (%s), events %s; want the second write unasked", r.Status, r.Error, types(r))
	}
	if got, _ := os.ReadFile(filepath.Join(e.dir, "a.txt")); string(got) != "A2" {
		t.Fatalf("a.txt = %q", got)
	}
}
