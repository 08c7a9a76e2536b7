package planning

import (
	"errors"
	"strings"
	"testing"
)

// want is the whole transition table, written out independently of the
// implementation's map: every status × every action, "" where refused.
var want = map[Status]map[Action]Status{
	StatusIdle: {
		ActionStart: StatusRunning,
	},
	StatusRunning: {
		ActionFinish: StatusIdle,
		ActionSubmit: StatusAwaitingApproval,
	},
	StatusAwaitingApproval: {
		ActionRefine:  StatusRunning,
		ActionFinish:  StatusAwaitingApproval,
		ActionApprove: StatusExecuting,
		ActionCancel:  StatusIdle,
	},
	StatusExecuting: {
		ActionStart:    StatusExecuting,
		ActionFinish:   StatusExecuting,
		ActionContinue: StatusExecuting,
		ActionComplete: StatusIdle,
		ActionStall:    StatusStalled,
	},
	StatusStalled: {
		ActionStart:    StatusRunning,
		ActionCancel:   StatusIdle,
		ActionContinue: StatusExecuting,
	},
}

func TestNextEveryStatusAndAction(t *testing.T) {
	for _, s := range Statuses {
		for _, a := range Actions {
			got, err := Next(s, a)
			to, allowed := want[s][a]
			if allowed {
				if err != nil || got != to {
					t.Errorf("%s + %s = %s, %v; want %s", s, a, got, err, to)
				}
				continue
			}
			var te *TransitionError
			if !errors.As(err, &te) || !errors.Is(err, ErrTransition) {
				t.Errorf("%s + %s = %s, %v; want a *TransitionError", s, a, got, err)
				continue
			}
			if got != s || te.Status != s || te.Action != a || te.Reason == "" {
				t.Errorf("%s + %s refused as %+v, status %s; want the status kept and a reason", s, a, te, got)
			}
			if msg := err.Error(); !strings.Contains(msg, string(a)) || !strings.Contains(msg, string(s)) {
				t.Errorf("%s + %s: error %q does not name the action and the status", s, a, msg)
			}
		}
	}
}

// at returns a workflow in status s with a plan (and a task directory once
// approved), the way the engine reaches s.
func at(t *testing.T, s Status) *Workflow {
	t.Helper()
	w := NewWorkflow()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("reaching %s: %v", s, err)
		}
	}
	if s == StatusIdle {
		return w
	}
	_, err := w.StartRun()
	must(err)
	if s == StatusRunning {
		return w
	}
	must(w.Submit(Plan{Title: "t", Steps: []string{"a"}}))
	if s == StatusAwaitingApproval {
		return w
	}
	must(w.Approve(ModeAutoEdit, "/task"))
	if s == StatusStalled {
		must(w.Complete(ExecStalled))
	}
	return w
}

// TestWorkflowMethodsEveryStatus drives each method from each status and
// checks it agrees with the table: the status moves as the table says, or
// the call fails with a *TransitionError and changes nothing.
func TestWorkflowMethodsEveryStatus(t *testing.T) {
	methods := map[Action]func(w *Workflow) error{
		ActionStart: func(w *Workflow) error {
			if w.Status() == StatusAwaitingApproval {
				return &TransitionError{Action: ActionStart} // StartRun refines instead; covered below
			}
			_, err := w.StartRun()
			return err
		},
		ActionRefine: func(w *Workflow) error {
			if w.Status() != StatusAwaitingApproval {
				return &TransitionError{Action: ActionRefine} // StartRun starts instead
			}
			refining, err := w.StartRun()
			if !refining {
				t.Errorf("StartRun from %s did not report refining", StatusAwaitingApproval)
			}
			return err
		},
		ActionFinish:   func(w *Workflow) error { return w.FinishRun() },
		ActionSubmit:   func(w *Workflow) error { return w.Submit(Plan{Title: "new", Steps: []string{"x"}}) },
		ActionApprove:  func(w *Workflow) error { return w.Approve(ModeDefault, "/dir") },
		ActionCancel:   func(w *Workflow) error { return w.Cancel() },
		ActionContinue: func(w *Workflow) error { return w.Continue() },
		ActionComplete: func(w *Workflow) error { return w.Complete(ExecCompleted) },
		ActionStall:    func(w *Workflow) error { return w.Complete(ExecStalled) },
	}
	for _, s := range Statuses {
		for _, a := range Actions {
			w := at(t, s)
			before := w.State()
			err := methods[a](w)
			to, allowed := want[s][a]
			if !allowed {
				if !errors.Is(err, ErrTransition) {
					t.Errorf("%s from %s: err = %v, want a refusal", a, s, err)
				}
				if after := w.State(); after.Status != before.Status || after.TaskDir != before.TaskDir || (after.Plan == nil) != (before.Plan == nil) {
					t.Errorf("%s from %s was refused but changed the state: %+v -> %+v", a, s, before, after)
				}
				continue
			}
			if err != nil || w.Status() != to {
				t.Errorf("%s from %s: status %s, err %v; want %s", a, s, w.Status(), err, to)
			}
		}
	}
}

func TestWorkflowPlanAndTaskDir(t *testing.T) {
	w := at(t, StatusAwaitingApproval)
	if w.Plan() == nil || w.Plan().Title != "t" || w.TaskDir() != "" {
		t.Fatalf("after submit: plan %+v, task dir %q", w.Plan(), w.TaskDir())
	}
	if err := w.Approve(ModePlan, "/d"); err == nil || w.Status() != StatusAwaitingApproval {
		t.Fatalf("approve in Plan mode: err %v, status %s; want refused", err, w.Status())
	}
	if err := w.Approve(ModeAutoEdit, "/d"); err != nil {
		t.Fatal(err)
	}
	if w.TaskDir() != "/d" || !w.Executing() || w.ExecMode(ModePlan) != ModeAutoEdit || w.ExecMode(ModeDefault) != ModeDefault {
		t.Fatalf("after approve: task dir %q, executing %v, exec mode %s", w.TaskDir(), w.Executing(), w.ExecMode(ModePlan))
	}
	if err := w.Complete(ExecStalled); err != nil {
		t.Fatal(err)
	}
	if err := w.Cancel(); err != nil || w.Plan() != nil || w.TaskDir() != "" || w.Executing() {
		t.Fatalf("cancel a stalled plan: err %v, plan %+v, task dir %q", err, w.Plan(), w.TaskDir())
	}
	// A copy handed out does not alias the workflow's plan.
	w = at(t, StatusAwaitingApproval)
	w.Plan().Steps[0] = "changed"
	if w.Plan().Steps[0] != "a" {
		t.Fatal("Plan returned the workflow's own slice")
	}
}

func TestWorkflowRefusesWithoutPlan(t *testing.T) {
	w := RestoreWorkflow(WorkflowState{Status: StatusAwaitingApproval})
	if err := w.Approve(ModeDefault, ""); !errors.Is(err, ErrTransition) {
		t.Errorf("approve without a plan: %v", err)
	}
	w = RestoreWorkflow(WorkflowState{Status: StatusStalled, TaskDir: "/d"})
	if err := w.Continue(); !errors.Is(err, ErrTransition) {
		t.Errorf("continue without a plan: %v", err)
	}
}

func TestRestoreAndResume(t *testing.T) {
	plan := &Plan{Title: "p", Steps: []string{"s"}}
	for _, tc := range []struct {
		st         WorkflowState
		wantStatus Status
		wantStep   Step
	}{
		{WorkflowState{}, StatusIdle, StepPrompt},
		{WorkflowState{Status: StatusRunning, Plan: plan}, StatusIdle, StepPrompt}, // killed mid-run
		{WorkflowState{Status: StatusIdle, Plan: plan, TaskDir: "/d"}, StatusIdle, StepPrompt},
		{WorkflowState{Status: StatusAwaitingApproval, Plan: plan}, StatusAwaitingApproval, StepReview},
		{WorkflowState{Status: StatusAwaitingApproval}, StatusAwaitingApproval, StepPrompt},
		{WorkflowState{Status: StatusExecuting, Plan: plan, TaskDir: "/d"}, StatusExecuting, StepContinue},
		{WorkflowState{Status: StatusExecuting, Plan: plan}, StatusExecuting, StepContinue}, // no task files kept
		{WorkflowState{Status: StatusStalled, Plan: plan, TaskDir: "/d"}, StatusStalled, StepContinue},
		{WorkflowState{Status: StatusStalled}, StatusStalled, StepPrompt},
	} {
		w := RestoreWorkflow(tc.st)
		if w.Status() != tc.wantStatus || w.Resume() != tc.wantStep {
			t.Errorf("restore %+v: status %s, next %s; want %s, %s", tc.st, w.Status(), w.Resume(), tc.wantStatus, tc.wantStep)
		}
		if got := w.State(); got.TaskDir != tc.st.TaskDir || (got.Plan == nil) != (tc.st.Plan == nil) {
			t.Errorf("restore %+v then State = %+v", tc.st, got)
		}
	}
}

func TestReviewChoice(t *testing.T) {
	for _, tc := range []struct {
		in       string
		want     ReviewChoice
		mode     Mode
		approves bool
	}{
		{"1", ReviewApprove, ModeDefault, true},
		{"2", ReviewApproveConfirm, ModeAutoEdit, true},
		{"3", ReviewRefine, ModePlan, false},
		{"4", ReviewCancel, ModePlan, false},
	} {
		c, err := ParseReviewChoice(tc.in)
		if err != nil || c != tc.want {
			t.Errorf("ParseReviewChoice(%q) = %s, %v; want %s", tc.in, c, err, tc.want)
		}
		if m, ok := c.ApprovalMode(); m != tc.mode || ok != tc.approves {
			t.Errorf("%s.ApprovalMode() = %s, %v; want %s, %v", c, m, ok, tc.mode, tc.approves)
		}
	}
	for _, bad := range []string{"", "0", "5", "11", "y"} {
		if _, err := ParseReviewChoice(bad); err == nil {
			t.Errorf("ParseReviewChoice(%q) accepted", bad)
		}
	}
}
