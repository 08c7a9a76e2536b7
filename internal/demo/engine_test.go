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

// TestHeadlessDemo plays the demo against the real engine, the way
// `harness9 demo --headless` does: plan, approve automatically, execute.
func TestHeadlessDemo(t *testing.T) {
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
	ctx := context.Background()
	last := func(evs func(func(agent.Event) bool)) agent.Done {
		var done agent.Done
		for ev := range evs {
			switch ev := ev.(type) {
			case agent.Error:
				t.Errorf("engine error: %s", ev.Message)
			case agent.Done:
				done = ev
			}
		}
		return done
	}
	if done := last(eng.Run(ctx, d.Prompt)); done.Status != agent.RunAwaitingApproval {
		t.Fatalf("plan phase ended %q, want awaiting_approval", done.Status)
	}
	if done := last(eng.Approve(ctx, planning.ModeDefault)); done.Status != agent.RunCompleted {
		t.Fatalf("execution ended %q, want completed; todos %+v", done.Status, eng.Todos())
	}
	for path, want := range Files {
		got, err := os.ReadFile(filepath.Join(d.Workdir, path))
		if err != nil || string(got) != want {
			t.Errorf("%s not written as scripted (err %v)", path, err)
		}
	}
	todo, err := os.ReadFile(filepath.Join(eng.TaskDir(), "TODO.md"))
	if err != nil {
		t.Fatalf("TODO.md: %v", err)
	}
	if n := strings.Count(string(todo), "- [x]"); n != len(Steps) {
		t.Errorf("TODO.md has %d checked items, want %d:\n%s", n, len(Steps), todo)
	}
}
