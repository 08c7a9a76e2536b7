package demo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// demoEngine opens the real engine on a prepared demo in Plan Mode.
func demoEngine(t *testing.T) (*Demo, *agent.Engine) {
	t.Helper()
	d, err := Prepare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ws, err := tool.NewWorkspace(d.Workdir, tool.WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := agent.New(d.Provider, agent.WithModelLabel(d.Model), agent.WithTools(builtin.All(ws)...),
		agent.WithWorkdir(d.Workdir), agent.WithPlanFiles(home), agent.WithMode(planning.ModePlan))
	if err != nil {
		t.Fatal(err)
	}
	return d, eng
}

// play drains a stream and returns its text, errors and final status.
func play(t *testing.T, evs func(func(agent.Event) bool)) (text string, status agent.RunStatus) {
	t.Helper()
	var b strings.Builder
	for ev := range evs {
		switch ev := ev.(type) {
		case agent.Text:
			b.WriteString(ev.Text + "\n")
		case agent.Error:
			t.Errorf("engine error: %s", ev.Message)
		case agent.Done:
			status = ev.Status
		}
	}
	return b.String(), status
}

// "Keep refining" with feedback plays no execution turn: the plan comes
// back for review with the feedback in it, and no file is written.
func TestRefineResubmitsThePlan(t *testing.T) {
	d, eng := demoEngine(t)
	ctx := context.Background()
	if _, st := play(t, eng.Run(ctx, d.Prompt)); st != agent.RunAwaitingApproval {
		t.Fatalf("plan phase: %s", st)
	}
	text, st := play(t, eng.Run(ctx, "please also add a Makefile"))
	if st != agent.RunAwaitingApproval || eng.Mode() != planning.ModePlan {
		t.Fatalf("refine ended %s in mode %v", st, eng.Mode())
	}
	if !strings.Contains(text, "please also add a Makefile") || !strings.Contains(text, "scripted demo") {
		t.Errorf("refine answer: %q", text)
	}
	if p := eng.Plan(); p == nil || !strings.Contains(p.Content, "please also add a Makefile") {
		t.Errorf("the resubmitted plan lacks the feedback: %+v", p)
	}
	for path := range Files {
		if _, err := os.Stat(filepath.Join(d.Workdir, path)); err == nil {
			t.Errorf("%s was written while refining", path)
		}
	}
	// Approving the refined plan still executes it completely.
	if _, st := play(t, eng.Approve(ctx, planning.ModeDefault)); st != agent.RunCompleted {
		t.Fatalf("execution after refining: %s", st)
	}
	for path := range Files {
		if _, err := os.Stat(filepath.Join(d.Workdir, path)); err != nil {
			t.Errorf("%s not written: %v", path, err)
		}
	}
}

// A prompt after the demo ended gets a plain answer, not a script error.
func TestPromptAfterTheEnd(t *testing.T) {
	d, eng := demoEngine(t)
	ctx := context.Background()
	play(t, eng.Run(ctx, d.Prompt))
	play(t, eng.Approve(ctx, planning.ModeDefault))
	for _, mode := range []planning.Mode{planning.ModeDefault, planning.ModePlan} {
		eng.SetMode(mode)
		text, st := play(t, eng.Run(ctx, "now add a web server"))
		if st != agent.RunCompleted || !strings.Contains(text, "scripted demo") || strings.Contains(text, "scripted:") {
			t.Errorf("%v: ended %s with %q", mode, st, text)
		}
	}
}
