package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
)

func todos(states ...planning.TodoStatus) []planning.TodoItem {
	names := []string{"Create main.go", "Add a README", "Write a test", "Run the test"}
	var out []planning.TodoItem
	for i, s := range states {
		out = append(out, planning.TodoItem{ID: itoa(i + 1), Content: names[i%len(names)], Status: s})
	}
	return out
}

func planEvents() []agent.Event {
	p := planning.Plan{Title: "Hello world in Go", Content: "# Plan", Steps: []string{"Create main.go", "Add a README", "Write a test"}}
	return []agent.Event{
		agent.SessionStarted{SessionID: "0123456789abcdef", Mode: planning.ModePlan},
		agent.TextDelta{Text: "Let me look "},
		agent.TextDelta{Text: "around."},
		agent.Text{Text: "Let me look around."},
		agent.ToolCall{ID: "c1", Name: "list_files", Input: json.RawMessage(`{"path":"."}`)},
		agent.ToolResult{ID: "c1", Name: "list_files", Output: "go.mod\nREADME.md"},
		agent.ToolCall{ID: "c2", Name: "submit_plan", Input: json.RawMessage(`{"title":"Hello world in Go"}`)},
		agent.ToolResult{ID: "c2", Name: "submit_plan", Output: "plan submitted"},
		agent.Todos{Items: todos(planning.TodoPending, planning.TodoPending, planning.TodoPending)},
		agent.PlanSubmitted{Plan: p},
		agent.UsageUpdate{ContextTokens: 70000, ContextWindow: 128000},
		agent.Done{Status: agent.RunAwaitingApproval},
	}
}

func TestGoldenSetupScreen(t *testing.T) {
	opts := Options{Setup: &SetupInfo{
		Problem:    "OPENAI_API_KEY is not set (model openai/gpt-4.1)",
		ConfigPath: "/home/u/.harness9/config.toml",
		StartDemo:  func() (Options, error) { return Options{}, nil },
	}}
	h := newHarness(t, opts, 90, 28)
	golden(t, "setup", h.screen())
	if s := h.screen(); strings.Contains(s, "error:") || strings.Contains(s, "%!") {
		t.Errorf("setup screen shows a raw error:\n%s", s)
	}
}

func TestGoldenWelcome(t *testing.T) {
	h := newHarness(t, testOptions(newFake()), 90, 16)
	golden(t, "welcome", h.screen())
}

func TestGoldenPlanModeStatusBar(t *testing.T) {
	f := newFake()
	f.todos = todos(planning.TodoCompleted, planning.TodoInProgress, planning.TodoPending)
	h := newHarness(t, testOptions(f), 100, 12)
	h.key("shift+tab")
	if h.m.mode != planning.ModePlan || f.Mode() != planning.ModePlan {
		t.Fatalf("Shift+Tab: mode = %v, engine mode %v; want plan", h.m.mode, f.Mode())
	}
	h.m.ctxTokens = 70000 // 54%: yellow
	lines := strings.Split(h.screen(), "\n")
	golden(t, "statusbar_plan", lines[len(lines)-1])
	raw := h.m.statusBar().view(100)
	for _, want := range []string{"38;5;220", "48;5;94", "38;5;208"} { // amber accent, bar, label
		if !strings.Contains(raw, want) {
			t.Errorf("Plan Mode status bar lacks colour %s: %q", want, raw)
		}
	}
	h.key("shift+tab")
	if !strings.Contains(normalise(h.m.statusBar().view(100)), "AUTO-EDIT") {
		t.Errorf("AutoEdit label missing")
	}
	h.key("shift+tab")
	if h.m.mode != planning.ModeDefault {
		t.Errorf("third Shift+Tab: mode %v, want default", h.m.mode)
	}
}

func TestGoldenTodoSnapshot(t *testing.T) {
	f := newFake()
	f.streams["run"] = []agent.Event{
		agent.ToolCall{ID: "t1", Name: "todo_write", Input: json.RawMessage(`{"todos":[{},{},{},{}]}`)},
		agent.ToolResult{ID: "t1", Name: "todo_write", Output: "[]"},
		agent.Todos{Items: todos(planning.TodoCompleted, planning.TodoInProgress, planning.TodoPending, planning.TodoCancelled)},
		agent.Done{Status: agent.RunCompleted},
	}
	h := newHarness(t, testOptions(f), 80, 16)
	h.typeText("go")
	h.key("enter")
	golden(t, "todo_snapshot", h.screen())
}

func TestGoldenStallWarning(t *testing.T) {
	f := newFake()
	f.todos = todos(planning.TodoCompleted, planning.TodoPending, planning.TodoPending)
	f.streams["continue"] = []agent.Event{
		agent.ExecRound{Round: 4, Done: 1, Total: 3},
		agent.Text{Text: "I am not sure how to go on."},
		agent.Stalled{Rounds: 3},
		agent.Done{Status: agent.RunStalled},
	}
	h := newHarness(t, testOptions(f), 90, 16)
	h.typeText("/continue")
	h.key("enter")
	if h.m.running {
		t.Fatal("control did not return to the user after a stall")
	}
	golden(t, "stall_warning", h.screen())
}

func TestGoldenResize(t *testing.T) {
	f := newFake()
	var evs []agent.Event
	for i := range 30 {
		evs = append(evs, agent.ToolCall{ID: itoa(i), Name: "read_file", Input: json.RawMessage(`{"path":"file` + itoa(i) + `.go"}`)},
			agent.ToolResult{ID: itoa(i), Name: "read_file", Output: "     1\ta\n     2\tb\n", Summary: "read 2 lines"}) // the summary read_file gives
	}
	evs = append(evs, agent.Text{Text: strings.Repeat("A long closing paragraph that will wrap differently. ", 6)}, agent.Done{Status: agent.RunCompleted})
	f.streams["run"] = evs
	h := newHarness(t, testOptions(f), 100, 20)
	h.typeText("read everything")
	h.key("enter")
	h.key("pgup")
	h.key("pgup")
	before := h.screen()
	h.send(tea.WindowSizeMsg{Width: 60, Height: 20})
	after := h.screen()
	golden(t, "resize_before", before)
	golden(t, "resize_after", after)
	// The same call is on top of the screen before and after the resize.
	if first(before) != first(after) {
		t.Errorf("resize lost the scroll position: top line %q became %q", first(before), first(after))
	}
	h.key("end")
	if !h.m.tr.follow {
		t.Error("End did not follow the tail")
	}
}

func first(screen string) string { return strings.SplitN(screen, "\n", 2)[0] }
