package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// savedEngine is a fake engine of a stored session: it reports the saved
// context size and how tool results were shown, as *agent.Engine does.
type savedEngine struct {
	*fakeEngine
	context int
}

func (s *savedEngine) LastContextTokens() int { return s.context }

func (s *savedEngine) DescribeResult(call llm.ToolCall, output string, isError bool) (string, bool) {
	if call.Name == "edit_file" {
		return "", true
	}
	return "summary of " + call.Name, false
}

// /model goes on in the same session: the transcript (hook and memory
// notes, harness9's own notes included) and the totals, cost and context
// gauge stay exactly as they were, and nothing says "Resumed".
func TestModelSwitchKeepsTranscriptAndTotals(t *testing.T) {
	f := newFake()
	f.history = []llm.Message{{Role: llm.RoleUser, Content: "hello"}}
	f.streams["run"] = []agent.Event{
		agent.HookReport{Hook: "post_tool_use", Message: "lint failed"},
		agent.Text{Text: "hi there"},
		agent.UsageUpdate{Usage: llm.Usage{InputTokens: 40000, OutputTokens: 2000}, ContextTokens: 42000, ContextWindow: 128000},
		agent.Done{Status: agent.RunCompleted},
	}
	opts := testOptions(f)
	opts.ModelLabel = "openai/gpt-4.1"
	opts.Price = func(string) (llm.Price, bool) { return llm.Price{Input: 2, Output: 8}, true }
	opts.Models = func() []string { return []string{"openai/gpt-4.1", "ollama/qwen3"} }
	opts.SetModel = func(string) error { return nil }
	h := newHarness(t, opts, 120, 40)
	h.typeText("hello")
	h.key("enter")
	h.waitIdle()
	before := h.screen()
	for _, want := range []string{"lint failed", "hi there", "42.0k tok $0.096", "ctx 32%"} {
		if !strings.Contains(before, want) {
			t.Fatalf("before the switch the screen lacks %q:\n%s", want, before)
		}
	}
	h.typeText("/model ollama/qwen3")
	h.key("enter")
	h.waitIdle()
	after := h.screen()
	for _, want := range []string{"> hello", "lint failed", "hi there", "42.0k tok $0.096", "ctx 32%", "ollama/qwen3"} {
		if !strings.Contains(after, want) {
			t.Errorf("after /model the screen lacks %q:\n%s", want, after)
		}
	}
	if strings.Contains(after, "Resumed session") {
		t.Errorf("/model says the session was resumed:\n%s", after)
	}
}

// A session opened again (--continue, /resume) shows its history as it was
// shown: the user's words without the Plan-Mode preamble, harness9's notes
// as notes, tool results with their summaries, todos and the plan; and
// the totals and context it had.
func TestResumeShowsTheSessionAsItWas(t *testing.T) {
	f := newFake()
	todos, _ := json.Marshal([]planning.TodoItem{{ID: "1", Content: "write the lexer", Status: planning.TodoPending}})
	plan, _ := json.Marshal(map[string]any{"title": "Split the parser", "content": "## Approach\nLexer first.", "steps": []string{"write the lexer"}})
	f.history = []llm.Message{
		{Role: llm.RoleUser, Content: planning.PlanPrompt("split the parser")},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "t", Name: planning.TodoWriteName, Input: json.RawMessage(`{"todos":[]}`)},
			{ID: "p", Name: planning.SubmitPlanName, Input: plan},
			{ID: "b", Name: "bash", Input: json.RawMessage(`{"command":"go vet"}`)},
		}},
		{Role: llm.RoleTool, ToolCallID: "t", Name: planning.TodoWriteName, Content: string(todos)},
		{Role: llm.RoleTool, ToolCallID: "p", Name: planning.SubmitPlanName, Content: "Plan submitted. Stop here and do not call any more tools."},
		{Role: llm.RoleTool, ToolCallID: "b", Name: "bash", Content: "ok\nexit code: 0"},
		{Role: llm.RoleUser, Content: agent.NotePrefix + "The user undid file changes."},
		{Role: llm.RoleUser, Content: agent.StopHookNote + "tests are failing"},
	}
	eng := &savedEngine{fakeEngine: f, context: 64000}
	opts := testOptions(eng)
	opts.Usage = func(id string) (map[string]llm.Usage, error) {
		if id != f.id {
			t.Errorf("usage asked for session %q", id)
		}
		return map[string]llm.Usage{"openai/gpt-4.1": {InputTokens: 10000, OutputTokens: 1000}, "ollama/qwen3": {InputTokens: 5000}}, nil
	}
	opts.ResumeID = f.id
	opts.Price = func(m string) (llm.Price, bool) { return llm.Price{Input: 2, Output: 8}, m == "openai/gpt-4.1" }
	h := newHarness(t, opts, 120, 60)
	s := h.screen()
	for _, want := range []string{"> split the parser", "Todos 0/1", "○ write the lexer", "Plan: Split the parser",
		"summary of submit_plan", "summary of bash", "The user undid file changes.", "⛔ stop hook: tests are failing",
		"16.0k tok", "ctx 50%"} {
		if !strings.Contains(s, want) {
			t.Errorf("the resumed session lacks %q:\n%s", want, s)
		}
	}
	for _, bad := range []string{"You are planning", "> [harness9]", "Stop here", "> The user's stop hook", "$"} {
		if strings.Contains(s, bad) {
			t.Errorf("the resumed session shows %q:\n%s", bad, s)
		}
	}
}
