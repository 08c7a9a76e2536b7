package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
)

// settledSource is an MCP manager as a tool source whose Generation, once
// a tool call changed the server's tool list, waits until the manager has
// followed the server's list_changed notification: the notification comes
// on its own time, and the test must not depend on which model call sees
// it first.
type settledSource struct {
	m       *mcptool.Manager
	changed atomic.Bool
	before  uint64
}

func (s *settledSource) Tools() []tool.Tool { return s.m.Tools() }

func (s *settledSource) Generation() uint64 {
	if s.changed.Load() {
		deadline := time.Now().Add(30 * time.Second)
		for s.m.Generation() == s.before && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	return s.m.Generation()
}

// A server that adds a tool while the run goes on (its tools/list_changed
// notification) has the tool offered from the next model call on, and the
// model's call of it reaches the server; in Plan Mode only a read-only
// newcomer is offered.
func TestToolSourceFollowedBetweenModelCalls(t *testing.T) {
	for _, mode := range []planning.Mode{planning.ModeDefault, planning.ModePlan} {
		t.Run(mode.String(), func(t *testing.T) {
			var extraCalls, writerCalls atomic.Int32
			src := &settledSource{}
			s := mcp.NewServer(&mcp.Implementation{Name: "dyn", Version: "1"}, nil)
			mcp.AddTool(s, &mcp.Tool{Name: "enable", Description: "adds tools", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
				func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
					src.before = src.m.Generation()
					mcp.AddTool(s, &mcp.Tool{Name: "extra", Description: "new", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
						func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
							extraCalls.Add(1)
							return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "extra ran"}}}, nil, nil
						})
					mcp.AddTool(s, &mcp.Tool{Name: "writer", Description: "changes things"},
						func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
							writerCalls.Add(1)
							return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote"}}}, nil, nil
						})
					src.changed.Store(true)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "enabled"}}}, nil, nil
				})
			ct, st := mcp.NewInMemoryTransports()
			ss, err := s.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			m, err := mcptool.Connect(context.Background(), nil, mcptool.WithTransport("dyn", ct))
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			src.m = m

			h := newHarness(t,
				scripted.Turn{Calls: scripted.Calls(scripted.Call("mcp__dyn__enable", map[string]any{}))},
				scripted.Turn{Calls: scripted.Calls(scripted.Call("mcp__dyn__extra", map[string]any{}))},
				scripted.Turn{Text: "done"},
			)
			eng := h.engine(agent.WithToolSource(src), agent.WithMode(mode))
			evs := drain(t, eng.Run(context.Background(), "go"))
			if mode == planning.ModePlan {
				// A plan run ends awaiting approval only with a plan.
				wantDone(t, evs, agent.RunCompleted)
			}
			reqs := h.p.Requests()
			first, second := toolNames(reqs[0]), toolNames(reqs[1])
			if slices.Contains(first, "mcp__dyn__extra") || !slices.Contains(second, "mcp__dyn__extra") {
				t.Errorf("tools offered: first call %v, second %v", first, second)
			}
			if got := slices.Contains(second, "mcp__dyn__writer"); got != (mode != planning.ModePlan) {
				t.Errorf("%s: writer offered = %v", mode, got)
			}
			res := resultsOf(evs)
			if len(res) != 2 || res[1].IsError || res[1].Output != "extra ran" || extraCalls.Load() != 1 {
				t.Errorf("results %+v, the server saw %d calls of extra", res, extraCalls.Load())
			}
			if !slices.Contains(toolNames(reqs[2]), "mcp__dyn__extra") {
				t.Error("the new tool was dropped again")
			}
		})
	}
}

// askingTool asks the user a question while it runs and returns the
// answer's action and name.
type askingTool struct{ readOnly bool }

func (a askingTool) Name() string        { return "ask" }
func (a askingTool) Description() string { return "asks the user" }
func (a askingTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{}}`)
}
func (a askingTool) ReadOnly() bool { return true }
func (a askingTool) Execute(ctx context.Context, _ json.RawMessage) (tool.Result, error) {
	ask := tool.AskerFrom(ctx)
	if ask == nil {
		return tool.Text("nobody to ask"), nil
	}
	ans, err := ask(ctx, tool.Question{From: "test", Message: "name?", ReadOnly: a.readOnly,
		Fields: []tool.Field{{Name: "name", Kind: tool.FieldString}}})
	if err != nil {
		return tool.Result{}, err
	}
	name, _ := ans.Values["name"].(string)
	return tool.Text(string(ans.Action) + " " + name), nil
}

// With WithUserInput a tool's question reaches the consumer as an
// InputRequest and the answer goes back to the tool; while planning only
// a read-only question is put to the user. Without it the tool learns
// nobody can be asked.
func TestToolQuestionsReachTheUser(t *testing.T) {
	run := func(t *testing.T, mode planning.Mode, readOnly, userInput bool) (string, []*agent.InputRequest, string) {
		h := newHarness(t, scripted.Turn{Calls: scripted.Calls(scripted.Call("ask", map[string]any{}))}, scripted.Turn{Text: "ok"})
		h.extra = []tool.Tool{askingTool{readOnly: readOnly}}
		eng := h.engine(agent.WithMode(mode), agent.WithUserInput(userInput))
		var asked []*agent.InputRequest
		var output string
		var evs []agent.Event
		for ev := range eng.Run(context.Background(), "go") {
			switch ev := ev.(type) {
			case *agent.InputRequest:
				asked = append(asked, ev)
				ev.Respond(tool.Answer{Action: tool.Accept, Values: map[string]any{"name": "Ada"}})
			case agent.ToolOutput:
				output += ev.Text
			}
			evs = append(evs, ev)
		}
		res := resultsOf(evs)
		if len(res) != 1 {
			t.Fatalf("results %+v", res)
		}
		return res[0].Output, asked, output
	}
	if out, asked, _ := run(t, planning.ModeDefault, false, true); out != "accept Ada" || len(asked) != 1 || asked[0].Question.Message != "name?" || asked[0].CallID == "" {
		t.Errorf("default mode: %q, %d requests", out, len(asked))
	}
	if out, asked, _ := run(t, planning.ModePlan, true, true); out != "accept Ada" || len(asked) != 1 {
		t.Errorf("plan mode, read-only question: %q, %d requests", out, len(asked))
	}
	if out, asked, shown := run(t, planning.ModePlan, false, true); out != "decline " || len(asked) != 0 || shown == "" {
		t.Errorf("plan mode, question of a server that changes things: %q, %d requests, output %q", out, len(asked), shown)
	}
	if out, asked, _ := run(t, planning.ModeDefault, false, false); out != "nobody to ask" || len(asked) != 0 {
		t.Errorf("without user input: %q, %d requests", out, len(asked))
	}
}
