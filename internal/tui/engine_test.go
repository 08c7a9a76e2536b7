package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/demo"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// The real engine is what the TUI drives.
var _ Engine = (*agent.Engine)(nil)

// TestRealEngineDemo plays the scripted demo through the TUI model and the
// real engine: Enter on the pre-filled prompt in Plan Mode, 1 in the review
// dialog, and the files and TODO.md appear.
func TestRealEngineDemo(t *testing.T) {
	d, err := demo.Prepare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	var eng *agent.Engine
	opts := Options{
		NewEngine: func(string) (Engine, error) {
			ws, err := tool.NewWorkspace(d.Workdir, tool.WithHome(home))
			if err != nil {
				return nil, err
			}
			eng, err = agent.New(d.Provider, agent.WithModelLabel(d.Model), agent.WithTools(builtin.All(ws)...),
				agent.WithWorkdir(d.Workdir), agent.WithPlanFiles(home), agent.WithMode(planning.ModePlan))
			return eng, err
		},
		Workdir: d.Workdir, ModelLabel: d.Model, DemoBanner: d.Banner,
		InitialPrompt: d.Prompt, InitialMode: planning.ModePlan, DialogDelay: -1,
	}
	h := newHarness(t, opts, 110, 40)
	h.key("enter")
	h.waitIdle()
	if h.m.reviewOpen() == nil {
		t.Fatalf("no review dialog; screen:\n%s", h.screen())
	}
	h.key("1")
	h.key("enter")
	h.waitIdle()
	s := h.screen()
	if !strings.Contains(s, "3/3 tasks") || !strings.Contains(s, "All three steps are done") {
		t.Errorf("final screen:\n%s", s)
	}
	for path := range demo.Files {
		if _, err := os.Stat(filepath.Join(d.Workdir, path)); err != nil {
			t.Errorf("%s was not written: %v", path, err)
		}
	}
	todo, err := os.ReadFile(filepath.Join(eng.TaskDir(), "TODO.md"))
	if err != nil || strings.Count(string(todo), "- [x]") != len(demo.Steps) {
		t.Errorf("TODO.md (err %v):\n%s", err, todo)
	}
}
