package tui

import (
	"context"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fakeEngine replays canned events and records what the TUI asked for.
type fakeEngine struct {
	mu      sync.Mutex
	mode    planning.Mode
	status  planning.Status
	todos   []planning.TodoItem
	plan    *planning.Plan
	id      string
	history []llm.Message
	// streams maps "run", "approve", "continue", "compact" to the events
	// the next call replays.
	streams map[string][]agent.Event
	// block makes a stream wait for cancellation before it ends.
	block bool
	calls []string
}

func newFake() *fakeEngine {
	return &fakeEngine{id: "0123456789abcdef", status: planning.StatusIdle, streams: map[string][]agent.Event{}}
}

func (f *fakeEngine) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeEngine) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeEngine) replay(ctx context.Context, kind string) iter.Seq[agent.Event] {
	return func(yield func(agent.Event) bool) {
		f.mu.Lock()
		evs, block := f.streams[kind], f.block
		f.mu.Unlock()
		for _, ev := range evs {
			if t, ok := ev.(agent.Todos); ok {
				f.mu.Lock()
				f.todos = t.Items
				f.mu.Unlock()
			}
			if p, ok := ev.(agent.PlanSubmitted); ok {
				f.mu.Lock()
				f.plan, f.status = &p.Plan, planning.StatusAwaitingApproval
				f.mu.Unlock()
			}
			if !yield(ev) {
				return
			}
		}
		if block {
			<-ctx.Done()
			yield(agent.Done{Status: agent.RunCancelled})
		}
	}
}

func (f *fakeEngine) Run(ctx context.Context, prompt string) iter.Seq[agent.Event] {
	f.record("run:" + prompt)
	return f.replay(ctx, "run")
}

// Review records the engine call each choice makes, as the real engine's
// Review does it.
func (f *fakeEngine) Review(c planning.ReviewChoice, feedback string) (func(context.Context) iter.Seq[agent.Event], error) {
	switch c {
	case planning.ReviewApprove, planning.ReviewApproveConfirm:
		name := "approve:auto"
		if c == planning.ReviewApproveConfirm {
			name = "approve:confirm"
		}
		return func(ctx context.Context) iter.Seq[agent.Event] {
			f.record(name)
			return f.replay(ctx, "approve")
		}, nil
	case planning.ReviewRefine:
		f.SetMode(planning.ModePlan)
		if feedback == "" {
			return nil, nil
		}
		return func(ctx context.Context) iter.Seq[agent.Event] { return f.Run(ctx, feedback) }, nil
	case planning.ReviewCancel:
		f.record("cancel-plan")
		f.mu.Lock()
		defer f.mu.Unlock()
		f.plan, f.status, f.todos = nil, planning.StatusIdle, nil
		return nil, nil
	}
	return nil, fmt.Errorf("unknown review choice %d", c)
}
func (f *fakeEngine) Continue(ctx context.Context) iter.Seq[agent.Event] {
	f.record("continue")
	return f.replay(ctx, "continue")
}
func (f *fakeEngine) Compact(ctx context.Context) iter.Seq[agent.Event] {
	f.record("compact")
	return f.replay(ctx, "compact")
}
func (f *fakeEngine) SetMode(m planning.Mode) {
	f.record("mode:" + m.String())
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mode = m
}
func (f *fakeEngine) Mode() planning.Mode {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mode
}
func (f *fakeEngine) NextStep() planning.Step {
	f.mu.Lock()
	defer f.mu.Unlock()
	return planning.RestoreWorkflow(planning.WorkflowState{Status: f.status, Plan: f.plan}).Resume()
}
func (f *fakeEngine) Todos() []planning.TodoItem {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]planning.TodoItem(nil), f.todos...)
}
func (f *fakeEngine) Plan() *planning.Plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.plan
}
func (f *fakeEngine) SessionID() string      { return f.id }
func (f *fakeEngine) History() []llm.Message { return f.history }

// testOptions returns Options opening eng, with a fixed clock.
func testOptions(eng Engine) Options {
	return Options{
		NewEngine:     func(string) (Engine, error) { return eng, nil },
		Workdir:       "/tmp/project",
		ModelLabel:    "openai/gpt-4.1",
		ContextWindow: 128000,
		Now:           func() time.Time { return time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC) },
		// Dialogs take keys at once; the guard has tests of its own.
		DialogDelay: -1,
		// The screen holds the whole conversation, as these tests read
		// it; inline rendering has tests of its own.
		Fullscreen: true,
	}
}

// harness drives a model the way Bubble Tea would, synchronously: it runs
// every command and feeds the model's own messages back.
type harness struct {
	t *testing.T
	m *model
	// late receives the results of commands that were still blocked (an
	// engine waiting for an answer) when run gave up waiting for them.
	late    chan tea.Msg
	pending int
}

func newHarness(t *testing.T, opts Options, w, h int) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	hs := &harness{t: t, m: newModel(ctx, opts), late: make(chan tea.Msg, 16)}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(hs.m.Init())
	return hs
}

func (h *harness) send(msgs ...tea.Msg) {
	h.t.Helper()
	for _, msg := range msgs {
		_, cmd := h.m.Update(msg)
		h.run(cmd)
	}
}

// run executes cmd and delivers the model's own messages. Commands of the
// widgets (cursor blinks and the like) are dropped.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	if cmd == nil {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		h.deliver(msg)
	case <-time.After(200 * time.Millisecond):
		// Blocked (an engine waiting on the user, or a widget's timer):
		// deliver it whenever it comes, from wait.
		h.pending++
		go func() { h.late <- <-done }()
	}
}

// wait delivers one late command result, failing after a generous timeout.
func (h *harness) wait() {
	h.t.Helper()
	select {
	case msg := <-h.late:
		h.pending--
		h.deliver(msg)
	case <-time.After(20 * time.Second):
		h.t.Fatalf("no late command result arrived")
	}
}

// waitIdle delivers late results until no stream is running.
func (h *harness) waitIdle() {
	h.t.Helper()
	for h.m.running {
		h.wait()
	}
}

func (h *harness) deliver(msg tea.Msg) {
	h.t.Helper()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	case engineReadyMsg, streamMsg, streamEndMsg, sessionsMsg, demoReadyMsg, historyMsg, filesLoaded,
		turnsMsg, conflictsMsg, rewoundMsg, memoryAddedMsg, attachedMsg, dialogArmedMsg, printedMsg, noticeMsg, mentionsMsg:
		h.send(msg)
	}
}

// keys types text and named keys: "enter", "shift+tab", "esc", "up" ...
func (h *harness) key(k string) {
	h.t.Helper()
	h.send(keyMsg(k))
}

func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "ctrl+r", "ctrl+o", "ctrl+g", "ctrl+t":
		return tea.KeyPressMsg{Code: rune(k[5]), Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is the model's view without colours and trailing spaces.
func (h *harness) screen() string { return normalise(h.m.View().Content) }

func normalise(s string) string {
	lines := strings.Split(ansi.Strip(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// golden compares got with testdata/<name>.golden; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// The open dialog of each kind, or nil.
func (m *model) reviewOpen() *reviewDialog   { d, _ := findDialog[*reviewDialog](m); return d }
func (m *model) permOpen() *permissionDialog { d, _ := findDialog[*permissionDialog](m); return d }
func (m *model) pickerOpen() *pickerDialog   { d, _ := findDialog[*pickerDialog](m); return d }
func (m *model) choiceOpen() *choiceDialog   { d, _ := findDialog[*choiceDialog](m); return d }
