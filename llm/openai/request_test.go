package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
)

func TestRequestBody(t *testing.T) {
	s := newServer(t, sse(true, roleChunk(), textChunk("ok"), finishChunk("stop")))
	p, _ := provider(s, WithMaxTokens(4096))
	req := llm.Request{
		Model:  "gpt-4.1",
		System: "You are harness9.",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "list the go files"},
			{Role: llm.RoleAssistant, Content: "Looking.", Reasoning: "secret thoughts", ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "glob", Input: json.RawMessage(`{"pattern":"*.go"}`)},
				{ID: "call_2", Name: "list_files", Input: nil},
			}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Name: "glob", Content: "main.go"},
			{Role: llm.RoleTool, ToolCallID: "call_2", Name: "list_files", Content: "no such dir", IsError: true},
		},
		Tools: []llm.ToolDef{{
			Name: "glob", Description: "Find files by pattern.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}`),
		}},
	}
	if _, err := collect(p, req); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	body := s.Body(0)
	check := func(path string, got, want any) {
		t.Helper()
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("%s = %s, want %s", path, g, w)
		}
	}
	check("model", body["model"], "gpt-4.1")
	check("stream", body["stream"], true)
	check("stream_options", body["stream_options"], map[string]any{"include_usage": true})
	check("max_completion_tokens", body["max_completion_tokens"], 4096)
	msgs := body["messages"].([]any)
	if len(msgs) != 5 {
		t.Fatalf("got %d messages: %v", len(msgs), msgs)
	}
	check("messages[0]", msgs[0], map[string]any{"role": "system", "content": "You are harness9."})
	check("messages[1]", msgs[1], map[string]any{"role": "user", "content": "list the go files"})
	check("messages[2]", msgs[2], map[string]any{"role": "assistant", "content": "Looking.", "tool_calls": []any{
		map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "glob", "arguments": `{"pattern":"*.go"}`}},
		map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": "list_files", "arguments": `{}`}},
	}})
	check("messages[3]", msgs[3], map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "main.go"})
	check("messages[4]", msgs[4], map[string]any{"role": "tool", "tool_call_id": "call_2", "content": "no such dir"})
	check("tools", body["tools"], []any{map[string]any{"type": "function", "function": map[string]any{
		"name": "glob", "description": "Find files by pattern.",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"pattern": map[string]any{"type": "string"}},
			"required": []any{"pattern"}},
	}}})
	if got := s.Header(0).Get("Authorization"); got != "Bearer sk-test-secret" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestCompatibleServerUsesMaxTokens(t *testing.T) {
	s := newServer(t, sse(true, roleChunk(), finishChunk("stop")))
	p, _ := provider(s, WithName("ollama"))
	req := simpleReq
	req.MaxTokens = 1000
	if _, err := collect(p, req); err != nil {
		t.Fatal(err)
	}
	if got := s.Body(0)["max_tokens"]; got != float64(1000) {
		t.Errorf("max_tokens = %v", got)
	}
	if _, ok := s.Body(0)["max_completion_tokens"]; ok {
		t.Error("max_completion_tokens sent to a compatible server")
	}
}

// The provider reads no environment: a key in OPENAI_API_KEY is not sent
// unless the program passes it, and the base URL is only what it is given.
func TestEnvironmentIsNotRead(t *testing.T) {
	s := newServer(t, sse(true, roleChunk(), finishChunk("stop")))
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	if _, err := collect(New(WithBaseURL(s.URL+"/v1")), simpleReq); err != nil {
		t.Fatal(err)
	}
	if got := s.Header(0).Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q: the environment's key was sent", got)
	}
	if _, err := collect(New(WithName("ollama"), WithBaseURL(s.URL+"/v1"), WithAPIKey("sk-given")), simpleReq); err != nil {
		t.Fatal(err)
	}
	if got := s.Header(1).Get("Authorization"); got != "Bearer sk-given" {
		t.Errorf("Authorization = %q, want the given key", got)
	}
}

func TestBadToolSchema(t *testing.T) {
	p := New(WithBaseURL("http://127.0.0.1:1/v1"))
	req := simpleReq
	req.Tools = []llm.ToolDef{{Name: "broken", InputSchema: json.RawMessage(`[1,2]`)}}
	for _, err := range p.Stream(context.Background(), req) {
		if err == nil || !strings.Contains(err.Error(), "tool broken") {
			t.Errorf("err = %v", err)
		}
	}
}

func BenchmarkStreamText(b *testing.B) {
	events := []string{roleChunk()}
	for range 200 {
		events = append(events, textChunk("token "))
	}
	events = append(events, finishChunk("stop"), usageChunk(100, 200, 0))
	s := newServer(b, sse(true, events...))
	p, _ := provider(s)
	b.ResetTimer()
	for b.Loop() {
		if _, err := llm.Collect(p.Stream(context.Background(), simpleReq)); err != nil {
			b.Fatal(err)
		}
	}
}

// An effort goes out as reasoning_effort; the reasoning tokens of the
// answer come back in the usage; reasoning blocks (another wire's) are
// not sent on Chat Completions.
func TestReasoningEffortAndTokens(t *testing.T) {
	usage := `{` + head + `,"choices":[],"usage":{"prompt_tokens":900,"completion_tokens":700,"total_tokens":1600,` +
		`"prompt_tokens_details":{"cached_tokens":512},"completion_tokens_details":{"reasoning_tokens":640}}}`
	s := newServer(t, sse(true, roleChunk(), textChunk("ok"), finishChunk("stop"), usage))
	p, _ := provider(s)
	req := llm.Request{Model: "o4-mini", Effort: llm.EffortHigh, Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "hi"},
		{Role: llm.RoleAssistant, Content: "hello", ReasoningBlocks: []llm.ReasoningBlock{{Provider: "openai", Type: "reasoning", Data: `{"type":"reasoning"}`}}},
		{Role: llm.RoleUser, Content: "again"}}}
	resp, err := llm.Collect(p.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Body(0)["reasoning_effort"]; got != "high" {
		t.Errorf("reasoning_effort = %v", got)
	}
	if raw, _ := json.Marshal(s.Body(0)["messages"]); strings.Contains(string(raw), "reasoning") {
		t.Errorf("a reasoning block was sent: %s", raw)
	}
	if want := (llm.Usage{InputTokens: 900, OutputTokens: 700, CacheReadTokens: 512, ReasoningTokens: 640}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	req.Effort = ""
	if _, err := collect(p, req); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Body(1)["reasoning_effort"]; ok {
		t.Error("reasoning_effort sent without an effort")
	}
}
