package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
)

// A run's allowed tools hide and refuse everything else (the planning
// tools stay), and its model replaces the engine's for that run only.
func TestRunWithAllowedToolsAndModel(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(
			scripted.Call("write_file", map[string]any{"path": "x.txt", "content": "x"}),
			scripted.Call("bash", map[string]any{"command": "echo hi > y.txt"}),
			scripted.Call("bash", map[string]any{"command": "echo ok"}))},
		scripted.Turn{Text: "done"},
		scripted.Turn{Text: "next run"},
	)
	e := h.engine()
	evs := drain(t, e.RunWith(context.Background(), "go", agent.RunOptions{
		Model: "small-model", AllowedTools: []string{"read_file", "bash(echo:*)"}, Origin: "the /go command"}))
	if d := doneOf(evs); d.Status != agent.RunCompleted {
		t.Fatalf("done %+v", d)
	}
	if _, ok := h.file("x.txt"); ok {
		t.Fatal("a tool outside the allowed list ran")
	}
	if _, ok := h.file("y.txt"); ok {
		t.Fatal("a bash line outside the allowed prefixes ran")
	}
	var results []agent.ToolResult
	for _, ev := range evs {
		if r, ok := ev.(agent.ToolResult); ok {
			results = append(results, r)
		}
	}
	if len(results) != 3 || !results[0].IsError || !strings.Contains(results[0].Output, "the /go command allows only") ||
		!results[1].IsError || results[2].IsError {
		t.Fatalf("results %+v", results)
	}
	req := h.p.Requests()[0]
	if req.Model != "small-model" {
		t.Errorf("model %q, want the run's", req.Model)
	}
	var names []string
	for _, d := range req.Tools {
		names = append(names, d.Name)
	}
	got := strings.Join(names, ",")
	if strings.Contains(got, "write_file") || !strings.Contains(got, "read_file") || !strings.Contains(got, "todo_write") {
		t.Errorf("tools sent: %s", got)
	}
	// The next run is back to the engine's model and tools.
	drain(t, e.Run(context.Background(), "again"))
	req = h.p.Requests()[2]
	if req.Model != "test-model" || len(req.Tools) <= len(names) {
		t.Errorf("the options leaked into the next run: model %q, %d tools", req.Model, len(req.Tools))
	}
}

func TestRunWithBadRuleFails(t *testing.T) {
	h := newHarness(t)
	evs := drain(t, h.engine().RunWith(context.Background(), "go", agent.RunOptions{AllowedTools: []string{"bash("}}))
	if d := doneOf(evs); d.Status != agent.RunError {
		t.Fatalf("done %+v", d)
	}
}
