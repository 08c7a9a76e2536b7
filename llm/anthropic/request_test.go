package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
)

func TestRequestBody(t *testing.T) {
	s := newServer(t, sse(textReply("ok")...))
	p, _ := provider(s)
	req := llm.Request{
		Model:  "claude-sonnet-4-5",
		System: "You are harness9.",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: "fix the bug"},
			{Role: llm.RoleAssistant, Content: "Reading both.", Reasoning: "hmm", ToolCalls: []llm.ToolCall{
				{ID: "toolu_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)},
				{ID: "toolu_2", Name: "list_files", Input: json.RawMessage(``)},
				{ID: "toolu_3", Name: "glob", Input: json.RawMessage(`{"pattern":`)},
			}},
			{Role: llm.RoleTool, ToolCallID: "toolu_1", Name: "read_file", Content: "package a"},
			{Role: llm.RoleTool, ToolCallID: "toolu_2", Name: "list_files", Content: "not a directory", IsError: true},
			{Role: llm.RoleTool, ToolCallID: "toolu_3", Name: "glob", Content: "", IsError: true},
			{Role: llm.RoleUser, Content: "also run the tests"},
		},
		Tools: []llm.ToolDef{{
			Name: "read_file", Description: "Read a file.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
		}},
	}
	if _, err := collect(p, req); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	body := s.Body(0)
	check := func(path string, got any, want string) {
		t.Helper()
		g, _ := json.Marshal(got)
		var w any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatalf("bad want for %s: %v", path, err)
		}
		ws, _ := json.Marshal(w)
		if string(g) != string(ws) {
			t.Errorf("%s =\n %s\nwant\n %s", path, g, ws)
		}
	}
	eph := `{"type":"ephemeral"}`
	check("model", body["model"], `"claude-sonnet-4-5"`)
	check("max_tokens", body["max_tokens"], `8192`)
	check("stream", body["stream"], `true`)
	check("system", body["system"], `[{"type":"text","text":"You are harness9.","cache_control":`+eph+`}]`)
	check("messages", body["messages"], `[
		{"role":"user","content":[{"type":"text","text":"fix the bug"}]},
		{"role":"assistant","content":[
			{"type":"text","text":"Reading both."},
			{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"a.go"}},
			{"type":"tool_use","id":"toolu_2","name":"list_files","input":{}},
			{"type":"tool_use","id":"toolu_3","name":"glob","input":{}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"package a"}]},
			{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"not a directory"}]},
			{"type":"tool_result","tool_use_id":"toolu_3","is_error":true},
			{"type":"text","text":"also run the tests","cache_control":`+eph+`}]}]`)
	check("tools", body["tools"], `[{"name":"read_file","description":"Read a file.","cache_control":`+eph+`,
		"input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}}]`)
	h := s.Header(0)
	// SDK v2.15 sends API keys as a bearer token.
	if h.Get("Authorization") != "Bearer sk-ant-test-secret" || h.Get("Anthropic-Version") == "" {
		t.Errorf("headers: authorization %q, anthropic-version %q", h.Get("Authorization"), h.Get("Anthropic-Version"))
	}
}

func TestRequestOptions(t *testing.T) {
	s := newServer(t, sse(textReply("ok")...))
	// A "/v1" suffix on the base URL is tolerated; caching can be switched off.
	p := New(WithBaseURL(s.URL+"/v1/"), WithAPIKey("k"), WithMaxTokens(1234), WithPromptCache(false), WithName("proxy"))
	if p.Name() != "proxy" {
		t.Errorf("Name = %q", p.Name())
	}
	if _, err := collect(p, simpleReq); err != nil {
		t.Fatal(err)
	}
	body := s.Body(0)
	if body["max_tokens"] != float64(1234) {
		t.Errorf("max_tokens = %v", body["max_tokens"])
	}
	if containsKey(body, "cache_control") {
		t.Errorf("cache_control sent with caching off: %v", body)
	}
}

// The provider reads no environment: ANTHROPIC_API_KEY and
// ANTHROPIC_BASE_URL take effect only when the program passes them.
func TestEnvironmentIsNotRead(t *testing.T) {
	s := newServer(t, sse(textReply("ok")...))
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	if _, err := collect(New(WithBaseURL(s.URL)), simpleReq); err != nil {
		t.Fatal(err)
	}
	h := s.Header(0)
	if got := h.Get("Authorization") + h.Get("X-Api-Key"); strings.Contains(got, "sk-ant-env") {
		t.Errorf("the environment's key was sent: %q", got)
	}
}

func containsKey(v any, key string) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == key || containsKey(x, key) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if containsKey(x, key) {
				return true
			}
		}
	}
	return false
}
