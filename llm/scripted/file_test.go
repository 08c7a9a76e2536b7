package scripted_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

func TestLoadFilePicksTurnsByHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "script.json")
	script := `{"turns": [
	  {"text": "first", "calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "x"}}]},
	  {"text": "second", "match": {"last_tool_result_contains": "wrote"}},
	  {"text": "bad args", "calls": [{"name": "edit_file", "input": "{not json"}]}
	]}`
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := scripted.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	user := llm.Message{Role: llm.RoleUser, Content: "go"}
	resp, err := llm.Collect(p.Stream(ctx, llm.Request{Messages: []llm.Message{user}}))
	if err != nil || resp.Message.Content != "first" || len(resp.Message.ToolCalls) != 1 {
		t.Fatalf("turn 1: %+v, %v", resp, err)
	}
	if got := string(resp.Message.ToolCalls[0].Input); got != `{"path": "a.txt", "content": "x"}` {
		t.Fatalf("input = %s", got)
	}
	history := []llm.Message{user, resp.Message, {Role: llm.RoleTool, ToolCallID: "call_1_1", Content: "wrote a.txt"}}
	// A second process replaying the same history gets the same answer: no state.
	for range 2 {
		resp, err = llm.Collect(p.Stream(ctx, llm.Request{Messages: history}))
		if err != nil || resp.Message.Content != "second" {
			t.Fatalf("turn 2: %+v, %v", resp, err)
		}
	}
	history[2].Content = "failed"
	if _, err = llm.Collect(p.Stream(ctx, llm.Request{Messages: history})); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("match not enforced: %v", err)
	}
	history = append(history[:2:2], llm.Message{Role: llm.RoleTool, Content: "wrote"}, llm.Message{Role: llm.RoleAssistant, Content: "second"})
	resp, _ = llm.Collect(p.Stream(ctx, llm.Request{Messages: history}))
	if got := string(resp.Message.ToolCalls[0].Input); got != "{not json" {
		t.Fatalf("string input should be verbatim, got %s", got)
	}
	history = append(history, resp.Message)
	if _, err = llm.Collect(p.Stream(ctx, llm.Request{Messages: history})); err == nil || !strings.Contains(err.Error(), "has 3 turns") {
		t.Fatalf("exhausted script: %v", err)
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := scripted.LoadFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Fatal("missing file accepted")
	}
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"turns": 3}`), 0o600)
	if _, err := scripted.LoadFile(bad); err == nil || !strings.Contains(err.Error(), "not a valid script") {
		t.Fatalf("got %v", err)
	}
	empty := filepath.Join(dir, "empty.json")
	_ = os.WriteFile(empty, []byte(`{"turns": []}`), 0o600)
	if _, err := scripted.LoadFile(empty); err == nil || !strings.Contains(err.Error(), "no turns") {
		t.Fatalf("got %v", err)
	}
}

// A compaction sends requests that do not count the session's turns: the
// summariser's, and the ones after it, which start with the summary. Turns
// with "when" answer them without shifting the numbered turns.
func TestLoadFileWhenTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "script.json")
	script := `{"turns": [
	  {"text": "first"},
	  {"when": {"system_contains": "You summarise"}, "text": "the summary"},
	  {"text": "second"},
	  {"when": {"first_user_contains": "[Summary]"}, "text": "after the summary",
	   "match": {"first_user_contains": "[>] keep going", "no_message_contains": "old output"}}
	]}`
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := scripted.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	play := func(req llm.Request) (string, error) {
		resp, err := llm.Collect(p.Stream(context.Background(), req))
		return resp.Message.Content, err
	}
	user := func(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }
	asst := func(s string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: s} }

	cases := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"numbered 1", llm.Request{Messages: []llm.Message{user("go")}}, "first"},
		{"numbered 2 keeps its index", llm.Request{Messages: []llm.Message{user("go"), asst("first"), user("more")}}, "second"},
		{"summariser", llm.Request{System: "You summarise transcripts.", Messages: []llm.Message{user("transcript")}}, "the summary"},
		{"after the summary", llm.Request{Messages: []llm.Message{user("[Summary]\nGoal\n\n## Active Tasks\n[>] keep going"), asst("x")}}, "after the summary"},
	}
	for _, c := range cases {
		if got, err := play(c.req); err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	// A when-turn that is chosen checks its match like any turn.
	_, err = play(llm.Request{Messages: []llm.Message{user("[Summary]\nno tasks"), asst("x")}})
	if err == nil || !strings.Contains(err.Error(), "when-turn at position 4") {
		t.Errorf("match of a when-turn not enforced: %v", err)
	}
	_, err = play(llm.Request{Messages: []llm.Message{user("[Summary]\n[>] keep going"), {Role: llm.RoleTool, Content: "old output"}}})
	if err == nil {
		t.Error("no_message_contains not enforced")
	}
}

func TestContentMatchers(t *testing.T) {
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.RoleUser, Content: "first prompt"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "read_file", Input: []byte(`{"path":"notes.md"}`)}}},
		{Role: llm.RoleTool, Content: "tool output"},
		{Role: llm.RoleUser, Content: "second prompt"},
	}}
	for _, c := range []struct {
		name string
		m    scripted.Matcher
		want bool
	}{
		{"first user", scripted.FirstUserContains("first"), true},
		{"first user is not the last", scripted.FirstUserContains("second"), false},
		{"any message: tool result", scripted.AnyMessageContains("tool output"), true},
		{"any message: call input", scripted.AnyMessageContains("notes.md"), true},
		{"any message: absent", scripted.AnyMessageContains("nowhere"), false},
		{"no message: absent", scripted.NoMessageContains("nowhere"), true},
		{"no message: present", scripted.NoMessageContains("second prompt"), false},
		{"first user of no messages", scripted.FirstUserContains(""), false},
	} {
		r := req
		if c.name == "first user of no messages" {
			r = llm.Request{}
		}
		if got := c.m(r); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
