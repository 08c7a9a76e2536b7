package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
)

// inlineHarness opens the TUI in its default, inline mode; printed holds
// what went to the terminal's scrollback, in order.
func inlineHarness(t *testing.T, f *fakeEngine, w, h int) (*harness, *[]string) {
	t.Helper()
	opts := testOptions(f)
	opts.Fullscreen = false
	hs := &harness{t: t, late: make(chan tea.Msg, 16)}
	var printed []string
	hs.m = newModel(t.Context(), opts)
	hs.m.print = func(s string) tea.Cmd {
		printed = append(printed, normalise(s))
		return func() tea.Msg { return printedMsg{} }
	}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs, &printed
}

func TestInlineFinishedBlocksGoToScrollback(t *testing.T) {
	f := newFake()
	f.block = true
	f.streams["run"] = []agent.Event{agent.TextDelta{Text: "Reading the"}}
	h, printed := inlineHarness(t, f, 80, 24)
	if len(*printed) != 1 || !strings.Contains((*printed)[0], "harness9 — a terminal coding agent") {
		t.Fatalf("the welcome was not printed: %q", *printed)
	}
	v := h.m.View()
	if v.AltScreen || lineCount(v.Content) > 6 {
		t.Fatalf("inline view: alt screen %v, %d lines:\n%s", v.AltScreen, lineCount(v.Content), v.Content)
	}
	h.typeText("read it")
	h.key("enter")
	if s := h.screen(); !strings.Contains(s, "Reading the") {
		t.Errorf("the streamed answer is not in the live area:\n%s", s)
	}
	if got := strings.Join(*printed, "\n"); !strings.Contains(got, "> read it") || strings.Contains(got, "Reading the") {
		t.Errorf("scrollback while streaming:\n%s", got)
	}
	// Parallel calls: the second finishes first, and waits for the first.
	h.send(streamMsg{gen: h.m.gen, ev: agent.Text{Text: "Reading the files."}})
	h.send(streamMsg{gen: h.m.gen, ev: agent.ToolCall{ID: "a", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)}})
	h.send(streamMsg{gen: h.m.gen, ev: agent.ToolCall{ID: "b", Name: "read_file", Input: json.RawMessage(`{"path":"b.go"}`)}})
	h.send(streamMsg{gen: h.m.gen, ev: agent.ToolResult{ID: "b", Name: "read_file", Output: "package b"}})
	if got := strings.Join(*printed, "\n"); strings.Contains(got, "b.go") || !strings.Contains(got, "Reading the files.") {
		t.Errorf("a call printed before the one above it finished:\n%s", got)
	}
	if s := h.screen(); !strings.Contains(s, "read_file a.go") || !strings.Contains(s, "read_file b.go") {
		t.Errorf("the calls are not in the live area:\n%s", s)
	}
	// The pager has the screen: nothing is printed until it closes.
	h.key("ctrl+o")
	if !h.m.View().AltScreen {
		t.Error("the pager is not on the full screen")
	}
	h.send(streamMsg{gen: h.m.gen, ev: agent.ToolResult{ID: "a", Name: "read_file", Output: "package a"}})
	if got := strings.Join(*printed, "\n"); strings.Contains(got, "a.go") {
		t.Errorf("printed under the pager:\n%s", got)
	}
	h.key("q")
	got := strings.Join(*printed, "\n")
	a, b := strings.Index(got, "read_file a.go"), strings.Index(got, "read_file b.go")
	if a < 0 || b < a {
		t.Errorf("calls not printed in order after the pager closed:\n%s", got)
	}
	if s := h.screen(); strings.Contains(s, "a.go") {
		t.Errorf("a printed block is still in the live area:\n%s", s)
	}
	stopTurn(h)
}

// A live area taller than the screen shows its newest rows: the frame
// never grows past the terminal.
func TestInlineLiveAreaFits(t *testing.T) {
	f := newFake()
	f.block = true
	long := strings.Repeat("a line of a long streamed answer\n", 80)
	f.streams["run"] = []agent.Event{agent.TextDelta{Text: long + "the newest line"}}
	h, _ := inlineHarness(t, f, 60, 20)
	h.typeText("go")
	h.key("enter")
	s := h.screen()
	if n := lineCount(s); n > 20 {
		t.Errorf("the frame has %d lines on a 20-line screen", n)
	}
	if !strings.Contains(s, "the newest line") {
		t.Errorf("the newest rows are not shown:\n%s", s)
	}
	stopTurn(h)
}
