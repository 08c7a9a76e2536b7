package agent_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool/mcptool"
)

type lookupIn struct {
	Key string `json:"key"`
}

// mcpServer connects an in-process MCP server with a read-only tool
// (readOnlyHint) and one without the hint. writes counts calls that reached
// the second.
func mcpServer(t *testing.T, writes *atomic.Int32) *mcptool.Manager {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "kv", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "lookup", Description: "Look a key up.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "value of " + in.Key}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "store", Description: "Store a key."},
		func(_ context.Context, _ *mcp.CallToolRequest, in lookupIn) (*mcp.CallToolResult, any, error) {
			writes.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "stored " + in.Key}}}, nil, nil
		})
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	m, err := mcptool.Connect(context.Background(), nil, mcptool.WithTransport("kv", clientT))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// An MCP tool joins the Plan Mode allowlist only when its server marks it
// read-only: the other is neither offered to the model nor run when the
// model names it anyway. Outside Plan Mode both are offered.
func TestPlanModeMCPToolsNeedReadOnlyHint(t *testing.T) {
	var writes atomic.Int32
	m := mcpServer(t, &writes)
	const lookup, store = "mcp__kv__lookup", "mcp__kv__store"
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call(lookup, map[string]string{"key": "a"}), scripted.Call(store, map[string]string{"key": "b"}))},
		scripted.Turn{Text: "Looked it up."},
	)
	h.extra = m.Tools()
	eng := h.engine(agent.WithMode(planning.ModePlan))
	evs := drain(t, eng.Run(context.Background(), "look things up"))
	wantDone(t, evs, agent.RunCompleted)

	names := toolNames(h.p.Requests()[0])
	if !slices.Contains(names, lookup) || slices.Contains(names, store) {
		t.Errorf("Plan-mode tools %v: want %s (readOnlyHint) and not %s", names, lookup, store)
	}
	res := resultsOf(evs)
	if len(res) != 2 || res[0].IsError || res[0].Output != "value of a" {
		t.Fatalf("results = %+v", res)
	}
	if !res[1].IsError || writes.Load() != 0 {
		t.Errorf("%s ran in Plan mode: %+v (server saw %d calls)", store, res[1], writes.Load())
	}

	h.p.Add(scripted.Turn{Text: "both"})
	eng.SetMode(planning.ModeDefault)
	wantDone(t, drain(t, eng.Run(context.Background(), "and now?")), agent.RunCompleted)
	names = toolNames(h.p.Requests()[2])
	if !slices.Contains(names, lookup) || !slices.Contains(names, store) {
		t.Errorf("default-mode tools %v lack an MCP tool", names)
	}
}
