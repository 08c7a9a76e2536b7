package planning

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/tool"
)

type pathInput struct {
	Path    string `json:"path"`
	Content string `json:"content,omitempty"`
}

// TestPlanGateThroughRegistry checks both layers where they are enforced:
// the definitions sent to the model, and the execution of a call the model
// makes anyway (it can name a tool it saw earlier in the history).
func TestPlanGateThroughRegistry(t *testing.T) {
	var wrote, ran atomic.Int32
	write := tool.New("write_file", "writes", func(context.Context, pathInput) (tool.Result, error) {
		wrote.Add(1)
		return tool.Text("written"), nil
	})
	read := tool.New("read_file", "reads", func(context.Context, pathInput) (tool.Result, error) {
		return tool.Text("content"), nil
	}, tool.AsReadOnly())
	bash := tool.New("bash", "runs", func(context.Context, struct {
		Command string `json:"command"`
	}) (tool.Result, error) {
		ran.Add(1)
		return tool.Text("ran"), nil
	})
	store := NewTodoStore()
	reg := tool.NewRegistry()
	if err := reg.Register(read, write, bash, NewTodoWriteTool(store), NewSubmitPlanTool(store, nil)); err != nil {
		t.Fatal(err)
	}

	// The engine names tools by their properties: read_file is read-only,
	// bash can run a command read-only.
	plan := NewGate(ModePlan, WithReadOnlyTools("read_file"), WithShellTools("bash"))
	var names []string
	for _, d := range reg.Definitions(plan) {
		names = append(names, d.Name)
	}
	if want := []string{"read_file", "bash", TodoWriteName, SubmitPlanName}; !slices.Equal(names, want) {
		t.Fatalf("Plan Mode definitions = %v, want %v", names, want)
	}

	res := reg.Execute(context.Background(), plan, llm.ToolCall{ID: "1", Name: "write_file", Input: json.RawMessage(`{"path":"x","content":"y"}`)})
	if !res.IsError || wrote.Load() != 0 || !strings.Contains(res.Output, "Plan Mode") {
		t.Fatalf("forced write_file in Plan Mode: %+v, executions %d", res, wrote.Load())
	}
	res = reg.Execute(context.Background(), plan, llm.ToolCall{ID: "2", Name: "bash", Input: bashInput("cat > f <<EOF\nx\nEOF")})
	if !res.IsError || ran.Load() != 0 {
		t.Fatalf("writing bash in Plan Mode: %+v, executions %d", res, ran.Load())
	}
	res = reg.Execute(context.Background(), plan, llm.ToolCall{ID: "3", Name: "bash", Input: bashInput("ls -la | head")})
	if res.IsError || ran.Load() != 1 {
		t.Fatalf("read-only bash in Plan Mode: %+v", res)
	}

	def := GateFor(ModeDefault)
	names = names[:0]
	for _, d := range reg.Definitions(def) {
		names = append(names, d.Name)
	}
	if slices.Contains(names, SubmitPlanName) || !slices.Contains(names, "write_file") {
		t.Fatalf("Default definitions = %v", names)
	}
	res = reg.Execute(context.Background(), def, llm.ToolCall{ID: "4", Name: SubmitPlanName, Input: json.RawMessage(`{"title":"t","content":"c","steps":["a"]}`)})
	if !res.IsError || len(store.Read()) != 0 {
		t.Fatalf("submit_plan outside Plan Mode: %+v, todos %v", res, store.Read())
	}
}
