package tui

import (
	"encoding/json"
	"fmt"
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
	if n := lineCount(s); n > 20-printReserve(20) {
		t.Errorf("the frame has %d lines on a 20-line screen", n)
	}
	if !strings.Contains(s, "the newest line") {
		t.Errorf("the newest rows are not shown:\n%s", s)
	}
	stopTurn(h)
}

// A print and the frame it meets always fit on the screen together
// (scrollback.go): whatever the live area shows, a finished block taller
// than the screen goes to the scrollback in parts, each no taller than
// the rows the frame leaves free, and all of it, in order.
func TestInlinePrintsFitBesideTheFrame(t *testing.T) {
	const width, height = 60, 20
	f := newFake()
	f.block = true
	lines := longAnswer(70)
	text := strings.Join(lines, "\n\n") // paragraphs: a row each and a blank between
	f.streams["run"] = []agent.Event{agent.TextDelta{Text: text}}
	h, printed := inlineHarness(t, f, width, height)
	h.typeText("go")
	h.key("enter")
	frame := lineCount(h.screen())
	if frame+printReserve(height) > height {
		t.Fatalf("a %d-row frame leaves no room for a print on a %d-row screen", frame, height)
	}
	before := len(*printed)
	h.send(streamMsg{gen: h.m.gen, ev: agent.Text{Text: text}})
	stopTurn(h)
	parts := (*printed)[before:]
	if len(parts) < 140/printReserve(height) {
		t.Fatalf("a 140-row block went out in %d prints", len(parts))
	}
	for _, p := range parts {
		if n := lineCount(p); n > printReserve(height) {
			t.Errorf("a print of %d rows beside a frame that may be %d rows tall on a %d-row screen", n, height-printReserve(height), height)
		}
	}
	all := strings.Join(parts, "\n")
	at := 0
	for _, l := range lines {
		i := strings.Index(all[at:], l)
		if i < 0 {
			t.Fatalf("%q was not printed after what came before it:\n%s", l, all)
		}
		at += i + len(l)
	}
}

func TestRowsThatFit(t *testing.T) {
	wide := strings.Repeat("x", 25) // three rows on a 10-column screen as Bubble Tea counts them
	for _, c := range []struct {
		lines []string
		room  int
		want  int
	}{
		{[]string{"a", "b", "c"}, 2, 2},
		{[]string{"a", "b", "c"}, 5, 3},
		{[]string{"a", wide, "c"}, 3, 1},
		{[]string{"a", wide, "c"}, 4, 2},
		{[]string{wide, "c"}, 2, 1}, // a line alone goes, even if it does not fit
	} {
		if got := rowsThatFit(c.lines, 10, c.room); got != c.want {
			t.Errorf("rowsThatFit(%q, 10, %d) = %d, want %d", c.lines, c.room, got, c.want)
		}
	}
}

// Quitting loses nothing the terminal was not given yet: the rows of a
// long block still going out in parts and the blocks left in the live
// area (the prompt behind it, an answer cut off mid-stream) are what Run
// writes after the program, each once and in order; a print in flight
// ends the program only once it has reached the terminal (or after
// printWait).
func TestQuitLeavesNothingUnprinted(t *testing.T) {
	const width, height = 60, 20
	f := newFake()
	f.block = true
	lines := longAnswer(30)
	f.streams["run"] = []agent.Event{agent.TextDelta{Text: "row"}}
	h, printed := inlineHarness(t, f, width, height)
	// Prints stay in flight until the test says they reached the terminal.
	h.m.print = func(s string) tea.Cmd {
		*printed = append(*printed, normalise(s))
		return nil
	}
	h.typeText("go")
	h.key("enter")
	h.send(printedMsg{})
	h.send(streamMsg{gen: h.m.gen, ev: agent.Text{Text: strings.Join(lines, "\n\n")}})
	stopTurn(h)
	if len(h.m.unprinted) == 0 {
		t.Fatal("the 30-row answer went out in one print: nothing is left to test")
	}
	h.send(printedMsg{}) // the second part goes out, and stays in flight
	f.streams["run"] = []agent.Event{agent.TextDelta{Text: "half an ans"}}
	h.typeText("more")
	h.key("enter")
	if s := h.screen(); !strings.Contains(s, "half an ans") {
		t.Fatalf("the streamed answer is not in the live area:\n%s", s)
	}
	before := len(*printed)
	quit := h.m.quit()
	if h.m.View().Content != "" {
		t.Errorf("the live area is not cleared when quitting:\n%s", h.m.View().Content)
	}
	// The print in flight reaches the terminal, then the program ends.
	_, cmd := h.m.Update(printedMsg{})
	if cmd == nil || cmd() != tea.QuitMsg(struct{}{}) {
		t.Fatal("the program did not end once the print in flight reached the terminal")
	}
	if len(*printed) != before {
		t.Errorf("printed while quitting: %q", (*printed)[before:])
	}
	if msg := quit(); msg != tea.QuitMsg(struct{}{}) {
		t.Errorf("without the print's answer quitting ends the program with %T, want a QuitMsg", msg)
	}
	all := strings.Join(*printed, "\n") + "\n" + normalise(h.m.unsent())
	want := append(append([]string{"> go"}, lines...), "> more", "half an ans")
	at := 0
	for _, w := range want {
		i := strings.Index(all[at:], w+"\n")
		if i < 0 {
			t.Fatalf("%q is not on the terminal after what came before it:\n%s", w, all)
		}
		at += i + len(w)
		if n := strings.Count(all, w+"\n"); n != 1 {
			t.Errorf("%q is on the terminal %d times:\n%s", w, n, all)
		}
	}
}

// longAnswer is n numbered rows of an answer, to be sent as paragraphs.
func longAnswer(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("row %d of a long answer", i+1)
	}
	return lines
}
