package planning

import (
	"go/ast"
	"go/token"
	"testing"

	"github.com/harness9/harness9/internal/lib/srctest"
	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/sandbox"
)

// wantPolicies is the whole mode table, written out independently of the
// implementation's map.
var wantPolicies = map[Mode]Policy{
	ModeDefault: {Mode: ModeDefault, Sandbox: sandbox.WorkspaceWrite, Checkpoints: true, Ask: AskUncontained, Executes: true},
	ModePlan: {Mode: ModePlan, ReadOnly: true, Plans: true, PromptPrefix: PlanModePrefix, Sandbox: sandbox.ReadOnly,
		Ask: AskNone},
	ModeAutoEdit: {Mode: ModeAutoEdit, Sandbox: sandbox.WorkspaceWrite, Checkpoints: true, Ask: AskChanges,
		AskReason: "AutoEdit asks before every call that may change something", Executes: true},
}

func TestPolicyForEveryMode(t *testing.T) {
	if len(wantPolicies) != len(plan.Modes) {
		t.Fatalf("the test knows %d modes, planning has %d", len(wantPolicies), len(plan.Modes))
	}
	for _, m := range plan.Modes {
		if got := PolicyFor(m); got != wantPolicies[m] {
			t.Errorf("PolicyFor(%s) = %+v\nwant %+v", m, got, wantPolicies[m])
		}
	}
	// An unknown mode is as careful as the most careful row.
	odd := Mode(9)
	got := PolicyFor(odd)
	if got.Mode != odd || !got.ReadOnly || got.Sandbox != sandbox.ReadOnly || got.Checkpoints || got.Executes || got.Ask != AskNone {
		t.Errorf("PolicyFor(%s) = %+v; want the read-only row", odd, got)
	}
}

// The rows agree with one another on what read-only means.
func TestPolicyRowsAreConsistent(t *testing.T) {
	readOnly := 0
	for _, m := range plan.Modes {
		p := PolicyFor(m)
		if p.ReadOnly {
			readOnly++
			if p.Sandbox != sandbox.ReadOnly || p.Checkpoints || p.Executes || p.Ask != AskNone {
				t.Errorf("%s is read-only but %+v", m, p)
			}
		} else if p.Sandbox == sandbox.ReadOnly || p.Plans || !p.Executes {
			t.Errorf("%s may change files but %+v", m, p)
		}
		if p.Plans && (!p.ReadOnly || p.PromptPrefix == "") {
			t.Errorf("%s plans but %+v", m, p)
		}
	}
	if readOnly != 1 {
		t.Errorf("%d read-only modes, want exactly one (where read-only sub-agents run)", readOnly)
	}
}

func TestPolicyAsksEveryCase(t *testing.T) {
	// want[mode] lists Asks for (readOnly, contained) = (f,f) (f,t) (t,f) (t,t).
	want := map[Mode][4]bool{
		ModeDefault:  {true, false, false, false},
		ModePlan:     {false, false, false, false},
		ModeAutoEdit: {true, true, false, false},
	}
	for _, m := range plan.Modes {
		for i, c := range [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}} {
			if got := PolicyFor(m).Asks(c[0], c[1]); got != want[m][i] {
				t.Errorf("%s: Asks(readOnly=%v, contained=%v) = %v, want %v", m, c[0], c[1], got, want[m][i])
			}
		}
	}
}

func TestPolicySubagentModeEveryCase(t *testing.T) {
	for _, m := range plan.Modes {
		got, err := PolicyFor(m).SubagentMode(true)
		if err != nil || got != ModePlan {
			t.Errorf("%s: a read-only sub-agent runs in %s, %v; want plan", m, got, err)
		}
		got, err = PolicyFor(m).SubagentMode(false)
		switch {
		case m == ModePlan && err == nil:
			t.Errorf("plan: a writing sub-agent was allowed (%s)", got)
		case m != ModePlan && (err != nil || got != m):
			t.Errorf("%s: a writing sub-agent runs in %s, %v; want its parent's mode", m, got, err)
		}
	}
}

func TestGateFollowsTheTable(t *testing.T) {
	for _, m := range plan.Modes {
		p := PolicyFor(m)
		g := NewGate(m, WithReadOnlyTools("read_file"))
		if g.Visible("write_file") == p.ReadOnly {
			t.Errorf("%s: write_file visible = %v, read-only row = %v", m, g.Visible("write_file"), p.ReadOnly)
		}
		if g.Visible(SubmitPlanName) != p.Plans {
			t.Errorf("%s: submit_plan visible = %v, plans = %v", m, g.Visible(SubmitPlanName), p.Plans)
		}
		if !g.Visible("read_file") || !g.Visible(TodoWriteName) {
			t.Errorf("%s: read_file or todo_write hidden", m)
		}
	}
}

// What a mode means is read from the table: no code of the library
// compares modes outside it (the app's front ends may, to draw a mode).
func TestNoModeDecisionOutsideTheTable(t *testing.T) {
	allowed := map[string]bool{"planning/policy.go": true, "planning/plan/plan.go": true}
	isMode := func(e ast.Expr) bool {
		var name string
		switch e := e.(type) {
		case *ast.Ident:
			name = e.Name
		case *ast.SelectorExpr:
			name = e.Sel.Name
		}
		return name == "ModeDefault" || name == "ModePlan" || name == "ModeAutoEdit"
	}
	scanned := false
	srctest.Code(t, srctest.NotLibrary, func(path string, fset *token.FileSet, f *ast.File) {
		scanned = scanned || path == "agent/loop.go"
		if allowed[path] {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isMode(n.X) || isMode(n.Y)) {
					t.Errorf("%s compares modes; read the mode table (planning.PolicyFor) instead", fset.Position(n.Pos()))
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isMode(e) {
						t.Errorf("%s switches on a mode; read the mode table (planning.PolicyFor) instead", fset.Position(e.Pos()))
					}
				}
			}
			return true
		})
	})
	if !scanned {
		t.Fatal("the scan did not reach the engine's code")
	}
}
