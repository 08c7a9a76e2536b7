package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

func hasCall(f *fakeEngine, call string) bool { return slices.Contains(f.Calls(), call) }

func planned(t *testing.T) (*harness, *fakeEngine) {
	t.Helper()
	f := newFake()
	f.streams["run"] = planEvents()
	f.streams["approve"] = []agent.Event{
		agent.Approved{TaskDir: "/tmp/project/.harness9/tasks/1-hello"},
		agent.ExecRound{Round: 1, Done: 0, Total: 3},
		agent.Todos{Items: todos(planning.TodoCompleted, planning.TodoCompleted, planning.TodoCompleted)},
		agent.Done{Status: agent.RunCompleted},
	}
	h := newHarness(t, testOptions(f), 90, 30)
	h.key("shift+tab")
	h.typeText("plan it")
	h.key("enter")
	if h.m.reviewOpen() == nil {
		t.Fatal("review dialog did not open")
	}
	return h, f
}

func TestReviewApproveAuto(t *testing.T) {
	h, f := planned(t)
	h.key("1")
	h.key("enter")
	if !hasCall(f, "approve:auto") {
		t.Fatalf("1 did not approve: %v", f.Calls())
	}
	s := h.screen()
	for _, want := range []string{"Task directory: /tmp/project/.harness9/tasks/1-hello", "auto-execution round 1", "3/3 tasks"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

func TestReviewKeys(t *testing.T) {
	t.Run("2 confirms each edit", func(t *testing.T) {
		h, f := planned(t)
		h.key("2")
		h.key("enter")
		if !hasCall(f, "approve:confirm") {
			t.Errorf("calls %v", f.Calls())
		}
		_ = h
	})
	t.Run("arrows and enter", func(t *testing.T) {
		h, f := planned(t)
		h.key("down")
		h.key("enter")
		if !hasCall(f, "approve:confirm") {
			t.Errorf("calls %v", f.Calls())
		}
	})
	t.Run("3 keeps refining", func(t *testing.T) {
		h, f := planned(t)
		h.key("3")
		h.key("enter")
		if h.m.reviewOpen() != nil || h.m.mode != planning.ModePlan || hasCall(f, "cancel-plan") {
			t.Errorf("refine: review %v mode %v calls %v", h.m.reviewOpen(), h.m.mode, f.Calls())
		}
		h.typeText("also add a Makefile")
		h.key("enter")
		if !hasCall(f, "run:also add a Makefile") {
			t.Errorf("feedback not sent: %v", f.Calls())
		}
	})
	t.Run("4 asks before cancelling", func(t *testing.T) {
		h, f := planned(t)
		h.key("4")
		h.key("enter")
		if hasCall(f, "cancel-plan") || h.m.reviewOpen() == nil || !h.m.reviewOpen().confirming {
			t.Fatalf("4 cancelled without asking: calls %v", f.Calls())
		}
		h.key("1")
		h.key("enter")
		if !hasCall(f, "cancel-plan") || h.m.reviewOpen() != nil || h.m.plan != nil {
			t.Errorf("confirmed cancel: calls %v", f.Calls())
		}
	})
}

func TestUnknownCommandSendsNothing(t *testing.T) {
	f := newFake()
	h := newHarness(t, testOptions(f), 80, 20)
	h.typeText("/frobnicate now")
	h.key("enter")
	if strings.Contains(strings.Join(f.Calls(), ","), "run:") {
		t.Errorf("unknown command reached the engine: %v", f.Calls())
	}
	if !strings.Contains(h.screen(), "unknown command /frobnicate") {
		t.Errorf("no hint:\n%s", h.screen())
	}
}

func TestSlashCompletion(t *testing.T) {
	h := newHarness(t, testOptions(newFake()), 80, 20)
	h.typeText("/he")
	h.key("tab")
	if got := h.m.in.value(); got != "/help " {
		t.Errorf("completion: %q", got)
	}
	h.m.in.take()
	h.typeText("/c")
	h.key("tab")
	if !strings.Contains(h.m.hint, "/code") || !strings.Contains(h.m.hint, "/compact") {
		t.Errorf("ambiguous completion hint %q", h.m.hint)
	}
}

func TestSlashCommands(t *testing.T) {
	f := newFake()
	f.todos = todos(planning.TodoPending)
	opts := testOptions(f)
	opts.SkillsList = func() []string { return []string{"go-style — how we write Go"} }
	h := newHarness(t, opts, 130, 60)
	for _, c := range []string{"/help", "/todos", "/skills", "/mcp", "/plan", "/code"} {
		h.typeText(c)
		h.key("enter")
	}
	s := h.screen()
	for _, want := range []string{"/resume [id]", "○ Create main.go", "go-style", "No MCP servers", "Plan Mode:", "Default mode"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	h.typeText("/plan write a test")
	h.key("enter")
	if !hasCall(f, "mode:plan") || !hasCall(f, "run:write a test") {
		t.Errorf("/plan task: %v", f.Calls())
	}
}

func TestResumePicker(t *testing.T) {
	f := newFake()
	opts := testOptions(f)
	var opened []string
	opts.NewEngine = func(id string) (Engine, error) {
		opened = append(opened, id)
		if id != "" {
			g := newFake()
			g.id = id
			g.history = []llm.Message{{Role: llm.RoleUser, Content: "earlier question"}, {Role: llm.RoleAssistant, Content: "earlier answer"}}
			return g, nil
		}
		return f, nil
	}
	now := opts.Now()
	opts.Sessions = func() ([]SessionInfo, error) {
		return []SessionInfo{
			{ID: "aaaaaaaa1111", Title: "Fix the parser", Updated: now.Add(-3 * time.Minute), Done: 2, Total: 5},
			{ID: "bbbbbbbb2222", Title: "Write docs", Updated: now.Add(-26 * time.Hour)},
		}, nil
	}
	h := newHarness(t, opts, 90, 24)
	h.typeText("/resume")
	h.key("enter")
	if h.m.pickerOpen() == nil {
		t.Fatal("no picker")
	}
	golden(t, "resume_picker", h.screen())
	h.key("down")
	h.key("enter")
	if len(opened) != 2 || opened[1] != "bbbbbbbb2222" {
		t.Fatalf("opened %v", opened)
	}
	if s := h.screen(); !strings.Contains(s, "earlier answer") || !strings.Contains(s, "session bbbbbbbb") {
		t.Errorf("resumed transcript:\n%s", s)
	}
}

func TestCtrlC(t *testing.T) {
	f := newFake()
	f.block = true
	f.streams["run"] = []agent.Event{agent.TextDelta{Text: "partial"}}
	h := newHarness(t, testOptions(f), 80, 20)
	h.typeText("long task")
	h.key("enter")
	if !h.m.running {
		t.Fatal("not running")
	}
	h.key("ctrl+c")
	h.waitIdle()
	if !strings.Contains(h.screen(), "partial") {
		t.Errorf("partial reply lost:\n%s", h.screen())
	}
	h.key("x")
	h.key("backspace") // any other key disarms quitting
	_, cmd := h.m.Update(keyMsg("ctrl+c"))
	if cmd != nil {
		t.Error("first idle Ctrl+C should only arm")
	}
	_, cmd = h.m.Update(keyMsg("ctrl+c"))
	if cmd == nil {
		t.Fatal("second Ctrl+C did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("second Ctrl+C did not return tea.Quit")
	}
}

func TestHistoryAndPaste(t *testing.T) {
	f := newFake()
	h := newHarness(t, testOptions(f), 80, 20)
	for _, p := range []string{"first", "second"} {
		h.typeText(p)
		h.key("enter")
	}
	h.key("up")
	if got := h.m.in.value(); got != "second" {
		t.Errorf("↑: %q", got)
	}
	h.key("up")
	if got := h.m.in.value(); got != "first" {
		t.Errorf("↑↑: %q", got)
	}
	h.key("down")
	h.key("down")
	if got := h.m.in.value(); got != "" {
		t.Errorf("↓↓: %q", got)
	}
	h.send(tea.PasteMsg{Content: "line one\nline two"})
	if got := h.m.in.value(); got != "line one\nline two" {
		t.Errorf("paste: %q", got)
	}
	h.key("enter")
	if !hasCall(f, "run:line one\nline two") {
		t.Errorf("multi-line prompt not sent: %v", f.Calls())
	}
}

func TestStreamingThenMarkdown(t *testing.T) {
	f := newFake()
	f.streams["run"] = []agent.Event{
		agent.TextDelta{Text: "# Title\n\nsome **bold**"},
		agent.Text{Text: "# Title\n\nsome **bold**"},
		agent.ToolCall{ID: "e", Name: "edit_file", Input: json.RawMessage(`{"path":"a.go"}`)},
		agent.ToolResult{ID: "e", Name: "edit_file", Output: "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-old\n+new\n", Diff: true},
		agent.ToolCall{ID: "b", Name: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)},
		agent.ToolResult{ID: "b", Name: "bash", IsError: true, Output: "exit status 1\nFAIL"},
		agent.Done{Status: agent.RunCompleted},
	}
	h := newHarness(t, testOptions(f), 80, 30)
	h.typeText("go")
	h.key("enter")
	s := h.screen()
	for _, want := range []string{"Title", "some bold", "edit_file a.go", "+new", "-old", "bash go test ./...", "exit status 1"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "**bold**") {
		t.Error("Markdown was not rendered once the message completed")
	}
}

func TestWheelScrolls(t *testing.T) {
	f := newFake()
	var evs []agent.Event
	for i := range 40 {
		evs = append(evs, agent.Text{Text: "message " + itoa(i)})
	}
	f.streams["run"] = append(evs, agent.Done{Status: agent.RunCompleted})
	h := newHarness(t, testOptions(f), 80, 20)
	h.typeText("go")
	h.key("enter")
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if h.m.tr.follow {
		t.Fatal("wheel up did not scroll")
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown}, tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if !h.m.tr.follow {
		t.Error("scrolling back down did not follow the tail")
	}
}

func TestEngineOpenErrorIsShownNotDumped(t *testing.T) {
	opts := testOptions(nil)
	opts.NewEngine = func(string) (Engine, error) { return nil, errString("database is locked") }
	h := newHarness(t, opts, 80, 12)
	if !strings.Contains(h.screen(), "Could not open the session: database is locked") {
		t.Errorf("screen:\n%s", h.screen())
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestRunWithoutTerminalPointsToRun(t *testing.T) {
	if term.IsTerminal(os.Stdin.Fd()) {
		t.Skip("stdin is a terminal")
	}
	err := Run(context.Background(), testOptions(newFake()))
	if !errors.Is(err, ErrNotTerminal) || !strings.Contains(err.Error(), "harness9 run") {
		t.Errorf("Run without a terminal: %v", err)
	}
}

// A running command's output streams into its block; once it ends the
// block collapses to the summary, and Ctrl+O shows the whole result (the
// output of a failing test must be readable).
func TestToolOutputLiveAndExpand(t *testing.T) {
	h := newHarness(t, testOptions(newFake()), 100, 40)
	h.m.handleEvent(agent.ToolCall{ID: "b", Name: "bash", Input: json.RawMessage(`{"command":"go test ./..."}`)})
	h.m.handleEvent(agent.ToolOutput{ID: "b", Text: "=== RUN   TestA\n"})
	h.m.handleEvent(agent.ToolOutput{ID: "b", Text: "--- PASS: TestA\n=== RUN   TestB\n"})
	if s := h.screen(); !strings.Contains(s, "=== RUN   TestB") || !strings.Contains(s, "--- PASS: TestA") {
		t.Fatalf("live output not shown:\n%s", s)
	}
	var out strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&out, "    check_%02d failed\n", i)
	}
	out.WriteString("FAIL\nexit code: 1")
	h.m.handleEvent(agent.ToolResult{ID: "b", Name: "bash", IsError: true, Output: out.String(), Summary: "exit code: 1 · check_01 failed"})
	s := h.screen()
	if strings.Contains(s, "check_15") || strings.Contains(s, "=== RUN") {
		t.Fatalf("a finished call should show its summary only:\n%s", s)
	}
	h.key("ctrl+o")
	s = h.screen()
	for _, want := range []string{"check_01 failed", "check_15 failed", "check_20 failed", "FAIL"} {
		if !strings.Contains(s, want) {
			t.Errorf("expanded view lacks %q:\n%s", want, s)
		}
	}
	h.key("ctrl+o")
	if strings.Contains(h.screen(), "check_15") {
		t.Error("Ctrl+O again should collapse the output")
	}
}

func TestCompactedNotes(t *testing.T) {
	f := newFake()
	f.streams["run"] = []agent.Event{
		agent.UsageUpdate{ContextTokens: 7000, ContextWindow: 8000},
		agent.Compacted{BeforeTokens: 3000, AfterTokens: 1600, Elided: 1, Reason: "threshold", FixedTokens: 4000},
		agent.Compacted{BeforeTokens: 3500, AfterTokens: 1500, Summarised: true, Reason: "threshold", FixedTokens: 4000},
		agent.Done{Status: agent.RunCompleted},
	}
	h := newHarness(t, testOptions(f), 100, 30)
	h.typeText("go")
	h.key("enter")
	s := h.screen()
	for _, want := range []string{"older tool outputs shortened: ~3000 → ~1600 tokens", "history compacted: ~3500 → ~1500 tokens"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	if h.m.ctxTokens != 5500 {
		t.Errorf("context after the compactions = %d tokens; want the history and the fixed part, 5500", h.m.ctxTokens)
	}
}

// A stream cut mid-answer and made again: the partial text is dropped and
// the answer is shown once.
func TestStreamRetryDropsThePartialAnswer(t *testing.T) {
	f := newFake()
	f.streams["run"] = []agent.Event{
		agent.TextDelta{Text: "Writing the fi"},
		agent.StreamRetry{Attempt: 1, Reason: "openai: the response stream ended before the model finished"},
		agent.TextDelta{Text: "Writing the file."},
		agent.Text{Text: "Writing the file."},
		agent.Done{Status: agent.RunCompleted},
	}
	h := newHarness(t, testOptions(f), 100, 30)
	h.typeText("go")
	h.key("enter")
	s := h.screen()
	if strings.Count(s, "Writing the fi") != 1 || !strings.Contains(s, "answer was cut off") {
		t.Errorf("screen:\n%s", s)
	}
}
