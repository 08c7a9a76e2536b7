package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// While a Default turn runs, Shift+Tab to Plan Mode is shown as what the
// next turn uses; the running turn keeps its write tools.
func TestStatusBarShowsNextTurnMode(t *testing.T) {
	f := newFake()
	f.block = true
	f.streams["run"] = []agent.Event{agent.SessionStarted{SessionID: "0123456789abcdef", Mode: planning.ModeDefault}}
	h := newHarness(t, testOptions(f), 120, 20)
	h.typeText("edit things")
	h.key("enter")
	h.key("shift+tab")
	bar := normalise(h.m.statusBar().view(120))
	if !strings.HasPrefix(strings.TrimSpace(bar), "DEFAULT") || !strings.Contains(bar, "next turn: PLAN MODE") {
		t.Errorf("status bar during a Default turn after Shift+Tab: %q", bar)
	}
	h.key("ctrl+c")
	h.waitIdle()
	bar = normalise(h.m.statusBar().view(120))
	if !strings.Contains(bar, "PLAN MODE") || strings.Contains(bar, "next turn") {
		t.Errorf("status bar after the turn: %q", bar)
	}
}

// /plan TASK while busy is queued and sent in Plan Mode when the turn ends.
func TestPlanWhileBusyIsQueued(t *testing.T) {
	f := newFake()
	f.block = true
	h := newHarness(t, testOptions(f), 100, 20)
	h.typeText("first")
	h.key("enter")
	h.typeText("/plan add a cache")
	h.key("enter")
	if hasCall(f, "run:add a cache") || len(h.m.queue) != 1 {
		t.Fatalf("queue %v calls %v", h.m.queue, f.Calls())
	}
	if !strings.Contains(h.screen(), "queued: add a cache") {
		t.Errorf("the queued task is not shown:\n%s", h.screen())
	}
	f.mu.Lock()
	f.block = false
	f.mu.Unlock()
	h.key("esc") // interrupt and steer
	h.waitIdle()
	calls := f.Calls()
	if !hasCall(f, "run:add a cache") || f.Mode() != planning.ModePlan {
		t.Errorf("calls %v, mode %v", calls, f.Mode())
	}
}

// A message typed while the agent works is sent once the turn ends.
func TestTypedWhileBusyIsSentNext(t *testing.T) {
	f := newFake()
	f.block = true
	h := newHarness(t, testOptions(f), 100, 20)
	h.typeText("first")
	h.key("enter")
	h.typeText("then this")
	h.key("enter")
	f.mu.Lock()
	f.block = false
	f.mu.Unlock()
	h.key("ctrl+c") // Ctrl+C cancels and gives the queued text back, unsent
	h.waitIdle()
	if hasCall(f, "run:then this") || h.m.in.value() != "then this" {
		t.Fatalf("Ctrl+C: calls %v, editor %q", f.Calls(), h.m.in.value())
	}
}

func TestResumeBadIDKeepsTheSession(t *testing.T) {
	f := newFake()
	opts := testOptions(f)
	opts.NewEngine = func(id string) (Engine, error) {
		if id != "" {
			return nil, errString("agent: no session " + id)
		}
		return f, nil
	}
	h := newHarness(t, opts, 100, 20)
	h.typeText("hello")
	h.key("enter")
	h.typeText("/resume BADID")
	h.key("enter")
	s := h.screen()
	if !strings.Contains(s, "> hello") || !strings.Contains(s, "Could not open session BADID") || !strings.Contains(s, "still in session 01234567") {
		t.Errorf("screen:\n%s", s)
	}
	if h.m.eng != f {
		t.Error("the current engine was dropped")
	}
}

func TestPathPromptIsAPrompt(t *testing.T) {
	f := newFake()
	h := newHarness(t, testOptions(f), 100, 20)
	h.typeText("/etc/hosts is wrong")
	h.key("enter")
	if !hasCall(f, "run:/etc/hosts is wrong") {
		t.Errorf("calls %v", f.Calls())
	}
	h.typeText("/hlep")
	h.key("enter")
	if !strings.Contains(h.screen(), "unknown command /hlep") || h.m.in.value() != "/hlep" {
		t.Errorf("a mistyped command: editor %q\n%s", h.m.in.value(), h.screen())
	}
}

func TestToolSummariesAreTruthful(t *testing.T) {
	ws, err := tool.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	summaries := map[string]tool.Summarizer{}
	for _, tl := range builtin.All(ws) {
		if s, ok := tl.(tool.Summarizer); ok {
			summaries[tl.Name()] = s
		}
	}
	cases := []struct {
		name, input, output string
		isError             bool
		want                []string
	}{
		{"bash", `{"command":"go test ./..."}`, "--- FAIL: TestX\nFAIL\nexit code: 1", true, []string{"bash go test ./...", "exit code: 1 · --- FAIL: TestX … (+1 line)"}},
		{"bash", `{"command":"true"}`, "(no output)\nexit code: 0", false, []string{"exit code: 0 · no output"}},
		{"read_file", `{"path":"a.go","limit":5}`, "     1\ta\n     2\tb\n     3\tc\n     4\td\n     5\te\n\n(showing lines 1-5 of 90; read more with offset=6)", false, []string{"read_file a.go (first 5 lines)", "read 5 lines (lines 1-5 of 90)"}},
		{"search_files", `{"pattern":"func Parse","path":"src"}`, "src/a.go:3: func Parse() {}\n(1 matching line in 1 file, sorted by path)", false, []string{`search_files "func Parse" in src`, "1 matching line in 1 file"}},
	}
	for _, c := range cases {
		// The summary line comes from the tool itself, as the engine
		// reports it in the ToolResult event.
		summary := summaries[c.name].Summary(json.RawMessage(c.input), tool.Result{Output: c.output, IsError: c.isError})
		b := &block{kind: blockTool, name: c.name, arg: keyArg(c.name, json.RawMessage(c.input)), done: true, isError: c.isError, result: c.output, summary: summary}
		got := normalise(strings.Join(renderTool(b, 100), "\n"))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.name, got, w)
			}
		}
	}
}

func TestInputHistoryPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	opts := testOptions(newFake())
	opts.HistoryFile = path
	h := newHarness(t, opts, 80, 20)
	h.typeText("remember me")
	h.key("enter")
	h.waitIdle()
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), "remember me") {
		t.Fatalf("history file: %q %v", data, err)
	}
	h2 := newHarness(t, opts, 80, 20)
	h2.key("up")
	if got := h2.m.in.value(); got != "remember me" {
		t.Errorf("↑ after a restart: %q", got)
	}
}

func TestCommandMenu(t *testing.T) {
	h := newHarness(t, testOptions(newFake()), 100, 24)
	h.typeText("/re")
	s := h.screen()
	if !strings.Contains(s, "/resume") || !strings.Contains(s, "/review") || !strings.Contains(s, "reopen the review dialog") {
		t.Errorf("command menu:\n%s", s)
	}
}

// A line ending in a backslash continues on the next line; Enter sends
// only without it.
func TestBackslashEnterIsANewline(t *testing.T) {
	f := newFake()
	h := newHarness(t, testOptions(f), 100, 20)
	h.typeText(`first line\`)
	h.key("enter")
	if got := h.m.in.value(); got != "first line\n" || ranAny(f) {
		t.Fatalf("editor %q, calls %v", got, f.Calls())
	}
	h.typeText("second")
	h.key("enter")
	if !hasCall(f, "run:first line\nsecond") {
		t.Errorf("calls %v", f.Calls())
	}
}

// A large paste is a placeholder in the editor and the whole text in the
// message.
func TestLargePasteIsAPlaceholder(t *testing.T) {
	f := newFake()
	h := newHarness(t, testOptions(f), 100, 20)
	big := strings.Repeat("log line\n", 50) + "end"
	h.typeText("explain this: ")
	h.send(tea.PasteMsg{Content: big})
	if v := h.m.in.value(); !strings.Contains(v, "[pasted #1: 51 lines]") || strings.Contains(v, "log line") {
		t.Fatalf("editor %q", v)
	}
	h.key("enter")
	if !hasCall(f, "run:explain this: "+big) {
		t.Errorf("calls %v", f.Calls())
	}
	h.waitIdle()
	h.send(tea.PasteMsg{Content: "short"})
	if v := h.m.in.value(); v != "short" {
		t.Errorf("a small paste: %q", v)
	}
}

// Ctrl+R finds older entries by substring; Enter puts the match in the
// editor without sending; Esc restores the editor.
func TestHistorySearch(t *testing.T) {
	f := newFake()
	opts := testOptions(f)
	h := newHarness(t, opts, 100, 20)
	h.m.in.setHistory([]string{"fix the parser", "add tests", "fix the lexer"})
	h.typeText("draft")
	h.key("ctrl+r")
	h.typeText("fix")
	if v := h.m.in.value(); v != "fix the lexer" {
		t.Fatalf("first match %q", v)
	}
	if !strings.Contains(h.screen(), "history search: fix") {
		t.Errorf("no search line:\n%s", h.screen())
	}
	h.key("ctrl+r")
	if v := h.m.in.value(); v != "fix the parser" {
		t.Fatalf("older match %q", v)
	}
	h.key("enter")
	if v := h.m.in.value(); v != "fix the parser" || ranAny(f) {
		t.Fatalf("accept: editor %q calls %v", v, f.Calls())
	}
	h.key("ctrl+r")
	h.typeText("zzz")
	h.key("esc")
	if v := h.m.in.value(); v != "fix the parser" {
		t.Errorf("esc should restore the editor: %q", v)
	}
}

// ranAny reports whether the TUI started a run.
func ranAny(f *fakeEngine) bool {
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "run:") {
			return true
		}
	}
	return false
}

// Tab after "@" completes paths from the workdir's file list (loaded off
// the UI loop once); the prompt sent is expanded by Attach.
func TestMentionCompletionAndAttach(t *testing.T) {
	f := newFake()
	opts := testOptions(f)
	listed := 0
	opts.Files = func() ([]string, error) {
		listed++
		return []string{"cmd/main.go", "internal/parse/lexer.go", "internal/parse/parser.go", "README.md"}, nil
	}
	opts.Attach = func(_ context.Context, p string) (Attachment, error) {
		return Attachment{Prompt: p + "\n<file>…</file>", Summary: "attached internal/parse/lexer.go (10 lines)"}, nil
	}
	h := newHarness(t, opts, 100, 24)
	h.typeText("look at @inter")
	h.key("tab")
	if got := h.m.in.value(); got != "look at @internal/parse/" {
		t.Fatalf("common prefix: %q (hint %q)", got, h.m.hint)
	}
	h.typeText("le")
	h.key("tab")
	if got := h.m.in.value(); got != "look at @internal/parse/lexer.go " {
		t.Fatalf("single match: %q", got)
	}
	h.typeText("and @READ")
	h.key("tab")
	if got := h.m.in.value(); !strings.HasSuffix(got, "@README.md ") || listed != 1 {
		t.Fatalf("second completion: %q, listed %d times", got, listed)
	}
	h.key("enter")
	h.waitIdle()
	if !hasCall(f, "run:look at @internal/parse/lexer.go and @README.md\n<file>…</file>") {
		t.Errorf("calls %v", f.Calls())
	}
	if !strings.Contains(h.screen(), "attached internal/parse/lexer.go") {
		t.Errorf("no attachment note:\n%s", h.screen())
	}
}

// /model opens a picker of the configured models; the choice becomes the
// model of the reopened session and the status bar says so.
func TestModelPicker(t *testing.T) {
	f := newFake()
	opts := testOptions(f)
	opts.ModelLabel = "openai/gpt-4.1"
	var set []string
	opts.Models = func() []string { return []string{"openai/gpt-4.1", "anthropic/claude-sonnet-4-5", "ollama/qwen3"} }
	opts.SetModel = func(name string) error { set = append(set, name); return nil }
	h := newHarness(t, opts, 100, 24)
	h.typeText("/model")
	h.key("enter")
	if s := h.screen(); !strings.Contains(s, "Switch model") || !strings.Contains(s, "ollama/qwen3") || !strings.Contains(s, "(current)") {
		t.Fatalf("picker:\n%s", s)
	}
	h.typeText("2")
	h.key("enter")
	h.waitIdle()
	if len(set) != 1 || set[0] != "anthropic/claude-sonnet-4-5" {
		t.Fatalf("SetModel calls %v", set)
	}
	if s := h.screen(); !strings.Contains(s, "anthropic/claude-sonnet-4-5") {
		t.Errorf("status bar does not show the new model:\n%s", s)
	}
	h.typeText("/model ollama/qwen3")
	h.key("enter")
	h.waitIdle()
	if len(set) != 2 || set[1] != "ollama/qwen3" {
		t.Errorf("SetModel calls %v", set)
	}
}

// The status bar keeps the session's token total and, for a priced model,
// its cost; an unpriced model shows tokens only.
func TestSessionCost(t *testing.T) {
	for _, priced := range []bool{true, false} {
		f := newFake()
		opts := testOptions(f)
		opts.ModelLabel = "openai/gpt-4.1"
		opts.Price = func(m string) (llm.Price, bool) {
			return llm.Price{Input: 2, Output: 8}, priced && m == "openai/gpt-4.1"
		}
		h := newHarness(t, opts, 120, 24)
		h.m.handleEvent(agent.UsageUpdate{Usage: llm.Usage{InputTokens: 1000, OutputTokens: 500}})
		h.m.handleEvent(agent.UsageUpdate{Usage: llm.Usage{InputTokens: 2000, OutputTokens: 0}})
		s := h.screen()
		if !strings.Contains(s, "3.5k tok") {
			t.Errorf("priced=%v: no token total:\n%s", priced, s)
		}
		if got := strings.Contains(s, "$0.010"); got != priced {
			t.Errorf("priced=%v: cost shown %v (want (1000*2+500*8+2000*2)/1e6 = $0.010):\n%s", priced, got, s)
		}
	}
}

// A sub-agent is one collapsed block under its task call: while it runs,
// its count and the call it is making now (tool and file), none of its
// calls as blocks of their own; its tokens count in the session's total;
// Ctrl+O lists its calls and its answer.
func TestSubagentCollapsedBlock(t *testing.T) {
	f := newFake()
	h := newHarness(t, testOptions(f), 120, 24)
	h.m.handleEvent(agent.ToolCall{ID: "t1", Name: "task", Input: json.RawMessage(`{"description":"find the parser","prompt":"p"}`)})
	for i := range 12 {
		id := fmt.Sprint("c", i)
		h.m.handleEvent(agent.Nested{Parent: "t1", Event: agent.ToolCall{ID: id, Name: "read_file", Input: json.RawMessage(fmt.Sprintf(`{"path":"child-%02d.go"}`, i))}})
		if i < 11 {
			h.m.handleEvent(agent.Nested{Parent: "t1", Event: agent.ToolResult{ID: id, Name: "read_file", Output: "package x", Summary: fmt.Sprintf("%d lines", 10+i)}})
		}
	}
	h.m.handleEvent(agent.Nested{Parent: "t1", Event: agent.UsageUpdate{Usage: llm.Usage{InputTokens: 3000, OutputTokens: 100}}})
	s := h.screen()
	if !strings.Contains(s, "find the parser") || !strings.Contains(s, "12 tool calls · 3.1k tokens") {
		t.Errorf("running sub-agent block:\n%s", s)
	}
	if !strings.Contains(s, "▸ read_file child-11.go") {
		t.Errorf("the sub-agent's current call is not shown:\n%s", s)
	}
	if strings.Contains(s, "child-10.go") || len(h.m.tr.blocks) != 3 {
		t.Errorf("a sub-agent's own calls are shown as blocks (%d blocks):\n%s", len(h.m.tr.blocks), s)
	}
	h.m.handleEvent(agent.Nested{Parent: "t1", Event: agent.ToolResult{ID: "c11", Name: "read_file", Output: "package x", Summary: "21 lines"}})
	h.m.handleEvent(agent.ToolResult{ID: "t1", Name: "task", Output: "The parser is in parse.go.\n\n[sub-agent ...]"})
	s = h.screen()
	if !strings.Contains(s, "12 tool calls · 3.1k tokens · The parser is in parse.go.") || !strings.Contains(s, "3.1k tok") {
		t.Errorf("finished sub-agent block:\n%s", s)
	}
	h.key("ctrl+o")
	s = h.screen()
	for _, want := range []string{"task find the parser", "12 tool calls", "1. ✓ read_file child-00.go", "⎿ 10 lines"} {
		if !strings.Contains(s, want) {
			t.Errorf("Ctrl+O on the sub-agent lacks %q:\n%s", want, s)
		}
	}
	h.key("G")
	s = h.screen()
	for _, want := range []string{"12. ✓ read_file child-11.go", "The parser is in parse.go."} {
		if !strings.Contains(s, want) {
			t.Errorf("the end of Ctrl+O on the sub-agent lacks %q:\n%s", want, s)
		}
	}
}

// Another source of "@" completion (an MCP server's resources) is asked
// with the prefix and offered with the files.
func TestMentionCompletionFromAnotherSource(t *testing.T) {
	opts := testOptions(newFake())
	opts.Files = func() ([]string, error) { return []string{"docs/guide.md"}, nil }
	var asked []string
	opts.Mentions = []func(string) []string{func(prefix string) []string {
		asked = append(asked, prefix)
		if strings.HasPrefix("docs:readme", prefix) {
			return []string{"docs:readme"}
		}
		return nil
	}}
	h := newHarness(t, opts, 100, 24)
	h.typeText("see @docs")
	h.key("tab")
	if got := h.m.in.value(); got != "see @docs" || !strings.Contains(h.m.hint, "docs/guide.md  docs:readme") {
		t.Fatalf("two sources: editor %q, hint %q", got, h.m.hint)
	}
	h.typeText(":")
	h.key("tab")
	if got := h.m.in.value(); got != "see @docs:readme " {
		t.Fatalf("the other source's one match: %q", got)
	}
	if len(asked) != 2 || asked[1] != "docs:" {
		t.Errorf("the source was asked %q", asked)
	}
}

// /effort shows the reasoning effort, sets it for the engines opened from
// now on, refuses a bad one without changing it, and keeps the session.
func TestEffortCommand(t *testing.T) {
	f := newFake()
	opts := testOptions(f)
	opts.Effort = llm.EffortLow
	var set []llm.Effort
	opts.SetEffort = func(e llm.Effort) { set = append(set, e) }
	h := newHarness(t, opts, 100, 24)
	h.typeText("/effort")
	h.key("enter")
	h.waitIdle()
	if s := h.screen(); !strings.Contains(s, "Reasoning effort: low.") {
		t.Fatalf("/effort does not show the effort:\n%s", s)
	}
	h.typeText("/effort max")
	h.key("enter")
	h.waitIdle()
	if s := h.screen(); len(set) != 0 || !strings.Contains(s, `"max" is not a reasoning effort`) {
		t.Fatalf("SetEffort calls %v; screen:\n%s", set, s)
	}
	h.typeText("/effort HIGH")
	h.key("enter")
	h.waitIdle()
	if len(set) != 1 || set[0] != llm.EffortHigh {
		t.Fatalf("SetEffort calls %v", set)
	}
	h.typeText("/effort")
	h.key("enter")
	h.waitIdle()
	if s := h.screen(); !strings.Contains(s, "Reasoning effort: high.") {
		t.Errorf("the new effort is not shown:\n%s", s)
	}
	// The whole exchange as the user sees it: the shown effort, the
	// refusal, the change and the new effort.
	golden(t, "effort", h.screen())
}
