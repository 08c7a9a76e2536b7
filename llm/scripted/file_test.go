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
