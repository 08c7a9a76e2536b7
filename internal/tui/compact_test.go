package tui

import (
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// /compact runs Engine.Compact on the real engine: the older history is
// summarised with the active todos appended, and the TUI says so.
func TestSlashCompactRealEngine(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	turns := []scripted.Turn{{Calls: scripted.Calls(scripted.Call(planning.TodoWriteName, map[string]any{"todos": []planning.TodoItem{
		{ID: "1", Content: "keep this in view", Status: planning.TodoInProgress},
	}}))}}
	for range 6 {
		turns = append(turns, scripted.Turn{Text: "Looking.", Calls: scripted.Calls(scripted.Call("list_files", nil))})
	}
	turns = append(turns, scripted.Turn{Text: "Done looking."})
	p := scripted.New(turns...)
	summariser := scripted.New(scripted.Turn{Text: "Goal: look around."})
	var eng *agent.Engine
	opts := Options{
		NewEngine: func(string) (Engine, error) {
			ws, err := tool.NewWorkspace(dir, tool.WithHome(home))
			if err != nil {
				return nil, err
			}
			eng, err = agent.New(p, agent.WithTools(builtin.All(ws)...), agent.WithWorkdir(dir), agent.WithPlanFiles(home),
				agent.WithCompactor(compact.New(summariser, "m", compact.WithKeepRecent(4))))
			return eng, err
		},
		Workdir: dir, ModelLabel: "scripted/test", ContextWindow: 128000,
	}
	h := newHarness(t, opts, 100, 40)
	h.typeText("look around")
	h.key("enter")
	h.waitIdle()
	if !strings.Contains(h.screen(), "Done looking.") {
		t.Fatalf("the run did not finish:\n%s", h.screen())
	}

	h.typeText("/compact")
	h.key("enter")
	h.waitIdle()
	if s := h.screen(); !strings.Contains(s, "history compacted: ~") {
		t.Fatalf("no compaction note:\n%s", s)
	}
	c := eng.Compaction()
	if c == nil || !strings.HasPrefix(c.Summary, compact.SummaryHeader+"\nGoal: look around.") ||
		!strings.HasSuffix(c.Summary, "## Active Tasks\n[>] keep this in view") {
		t.Fatalf("compaction = %+v", c)
	}
	reqs := summariser.Requests()
	if len(reqs) != 1 || len(reqs[0].Tools) != 0 {
		t.Fatalf("summariser requests = %d", len(reqs))
	}
	if got := len(eng.History()); got != 1+2*7+1 {
		t.Errorf("history has %d messages; the full history stays", got)
	}

	// The next prompt's request starts with the summary.
	p.Add(scripted.Turn{Text: "Carrying on from the summary.", Match: scripted.FirstUserContains(compact.SummaryHeader)})
	h.typeText("go on")
	h.key("enter")
	h.waitIdle()
	if !strings.Contains(h.screen(), "Carrying on from the summary.") {
		last, _ := p.LastRequest()
		t.Fatalf("the next run did not start from the summary (%d messages):\n%s", len(last.Messages), h.screen())
	}
}
