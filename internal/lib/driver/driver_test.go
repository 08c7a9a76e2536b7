package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/planning/plan"
)

// fakeSteps is a host whose steps follow a script: each Model answer says
// how many tool calls it makes and how the loop ends; Tools may complete
// an item. It records the steps in order.
type fakeSteps struct {
	log     []string
	answers []answer // Model's, in order
	todos   []plan.TodoItem
	fail    map[string]error // step name → its error
	hist    int
}

type answer struct {
	calls    int
	end      Status
	complete bool // the tool batch completes the next item
}

func (f *fakeSteps) res(end Status) Result {
	f.hist++
	return Result{End: end, Todos: append([]plan.TodoItem(nil), f.todos...), HistoryLen: f.hist}
}

func (f *fakeSteps) step(name string, end Status) (Result, error) {
	f.log = append(f.log, name)
	if err := f.fail[name]; err != nil {
		return Result{}, err
	}
	return f.res(end), nil
}

func (f *fakeSteps) Prompt(_ context.Context, l *Loop, prompt string) (Result, error) {
	short, _, _ := strings.Cut(prompt, ".")
	return f.step(fmt.Sprintf("prompt(%s,%v,%q)", l.Mode, l.User, short), "")
}

func (f *fakeSteps) Model(_ context.Context, l *Loop) (Result, error) {
	if len(f.answers) == 0 {
		return f.step("model", Completed)
	}
	a := f.answers[0]
	r, err := f.step("model", a.end)
	if a.calls == 0 {
		f.answers = f.answers[1:]
	}
	r.Calls = a.calls
	return r, err
}

func (f *fakeSteps) Tools(context.Context, *Loop) (Result, error) {
	a := f.answers[0]
	f.answers = f.answers[1:]
	if a.complete {
		for i := range f.todos {
			if f.todos[i].Status != plan.TodoCompleted {
				f.todos[i].Status = plan.TodoCompleted
				break
			}
		}
	}
	return f.step("tools", "")
}

func (f *fakeSteps) End(context.Context, *Loop) { f.log = append(f.log, "end") }

func (f *fakeSteps) Approve(_ context.Context, mode plan.Mode) (Result, error) {
	r, err := f.step("approve("+mode.String()+")", "")
	r.Mode = mode
	return r, err
}

func (f *fakeSteps) Continue(context.Context) (Result, error) {
	r, err := f.step("continue", "")
	r.Mode = plan.ModeAutoEdit
	return r, err
}

func (f *fakeSteps) Cancel(context.Context) (Result, error) { return f.step("cancel", "") }

func (f *fakeSteps) Complete(_ context.Context, o planning.ExecOutcome) (Result, error) {
	return f.step("complete("+o.String()+")", "")
}

func (f *fakeSteps) SetMode(_ context.Context, m plan.Mode) {
	f.log = append(f.log, "mode("+m.String()+")")
}

func (f *fakeSteps) RoundMode(_ context.Context, m plan.Mode) plan.Mode { return m }

type rounds struct{ log *[]string }

func (r rounds) Round(round, done, total int) {
	*r.log = append(*r.log, fmt.Sprintf("round %d %d/%d", round, done, total))
}
func (r rounds) Stalled(n int) { *r.log = append(*r.log, fmt.Sprintf("stalled %d", n)) }

func drive(f *fakeSteps, opts ...Option) *Driver {
	return New(f, rounds{&f.log}, append([]Option{WithLimits(Limits{MaxTurns: 3})}, opts...)...)
}

func TestRunLoopsUntilTheModelStops(t *testing.T) {
	f := &fakeSteps{answers: []answer{{calls: 2}, {calls: 0}, {calls: 1, end: ""}, {calls: 0, end: AwaitingApproval}}}
	st, err := drive(f).Run(context.Background(), plan.ModePlan, "plan it", true)
	// The second answer calls no tool and does not end the loop: a stop
	// hook made the model go on (no tool step for it).
	want := "prompt(plan,true,\"plan it\") model tools model model tools end"
	if st != MaxTurns || err != nil || strings.Join(f.log, " ") != want {
		t.Fatalf("status %s, %v, steps %q; want max_turns after 3 model calls, steps %q", st, err, strings.Join(f.log, " "), want)
	}
	f = &fakeSteps{answers: []answer{{calls: 1}, {calls: 0, end: AwaitingApproval}}}
	if st, err := drive(f).Run(context.Background(), plan.ModePlan, "p", true); st != AwaitingApproval || err != nil {
		t.Fatalf("status %s, %v; want awaiting_approval", st, err)
	}
}

func TestAFailedStepEndsTheLoopAndTheLoopIsClosed(t *testing.T) {
	boom := errors.New("boom")
	for _, name := range []string{"model", "tools"} {
		f := &fakeSteps{answers: []answer{{calls: 1}}, fail: map[string]error{name: boom}}
		st, err := drive(f).Run(context.Background(), plan.ModeDefault, "p", true)
		if st != Error || !errors.Is(err, boom) || f.log[len(f.log)-1] != "end" {
			t.Errorf("%s failed: status %s, %v, steps %v; want error and the loop closed", name, st, err, f.log)
		}
	}
}

func TestReviewEveryChoice(t *testing.T) {
	cases := []struct {
		choice   planning.ReviewChoice
		feedback string
		status   Status
		steps    string
		starts   bool
	}{
		{planning.ReviewApprove, "", Completed, "approve(default) complete(completed)", true},
		{planning.ReviewApproveConfirm, "", Completed, "approve(auto_edit) complete(completed)", true},
		{planning.ReviewRefine, "", AwaitingApproval, "mode(plan)", false},
		{planning.ReviewRefine, "  ", AwaitingApproval, "mode(plan)", false},
		{planning.ReviewRefine, "smaller", Completed, "mode(plan) prompt(plan,true,\"smaller\") model end", true},
		{planning.ReviewCancel, "", Completed, "cancel", false},
		{planning.ReviewChoice(9), "", AwaitingApproval, "", false},
	}
	for _, c := range cases {
		f := &fakeSteps{}
		st, err := drive(f).Review(context.Background(), c.choice, c.feedback)
		if got := strings.Join(f.log, " "); st != c.status || got != c.steps {
			t.Errorf("%s %q: status %s, steps %q; want %s, %q", c.choice, c.feedback, st, got, c.status, c.steps)
		}
		if (err != nil) != (c.choice == 9) || c.choice == 9 && !errors.Is(err, ErrUnknownChoice) {
			t.Errorf("%s: error %v", c.choice, err)
		}
		if Starts(c.choice, c.feedback) != c.starts {
			t.Errorf("Starts(%s, %q) = %v, want %v", c.choice, c.feedback, !c.starts, c.starts)
		}
	}
}

func items(n int) []plan.TodoItem {
	var out []plan.TodoItem
	for i := range n {
		out = append(out, plan.TodoItem{ID: fmt.Sprint(i + 1), Content: "x", Status: plan.TodoPending})
	}
	return out
}

func TestExecutionRoundsStallAndComplete(t *testing.T) {
	// Two rounds without a completed item stall (threshold 2).
	f := &fakeSteps{todos: items(2), answers: []answer{{calls: 1}, {end: Completed}, {calls: 1}, {end: Completed}}}
	st, err := drive(f, WithLimits(Limits{MaxTurns: 5, StallThreshold: 2})).Approve(context.Background(), plan.ModeDefault)
	if st != Stalled || err != nil || !strings.Contains(strings.Join(f.log, " "), "stalled 2 complete(stalled)") {
		t.Fatalf("status %s, %v, steps %v", st, err, f.log)
	}
	// Continue: every round completes an item; resumed rounds use the
	// continuation prompt, in the mode the plan executes in.
	f = &fakeSteps{todos: items(2), answers: []answer{{calls: 1, complete: true}, {end: Completed}, {calls: 1, complete: true}, {end: Completed}}}
	st, err = drive(f).Continue(context.Background())
	log := strings.Join(f.log, " ")
	if st != Completed || err != nil || strings.Count(log, "prompt(auto_edit,false,\"Continue with the next pending or in_progress item of the todo list\")") != 2 ||
		!strings.HasSuffix(log, "complete(completed)") {
		t.Fatalf("status %s, %v, steps %v", st, err, f.log)
	}
}

func TestHandOverAfterARoundThatProgressed(t *testing.T) {
	f := &fakeSteps{todos: items(2), answers: []answer{{calls: 1}, {end: Completed}, {calls: 1, complete: true}, {end: Completed}}}
	asked := 0
	d := drive(f, WithHandOver(func() bool { asked++; return true }), WithState(State{Rounds: 4}))
	st, err := d.Approve(context.Background(), plan.ModeDefault)
	if !errors.Is(err, ErrHandOver) || st != "" || asked != 1 {
		t.Fatalf("status %q, %v, asked %d; want a hand-over after the round that completed an item", st, err, asked)
	}
	s := d.State()
	if s.Rounds != 6 || s.ExecMode != plan.ModeDefault || s.Todos[0].Status != plan.TodoCompleted || s.HistoryLen == 0 {
		t.Fatalf("state %+v; want rounds 6 (4 earlier), the exec mode and the todo list", s)
	}
	if !strings.Contains(strings.Join(f.log, " "), "round 5 0/2") {
		t.Fatalf("rounds are not numbered after the earlier ones: %v", f.log)
	}
}
