package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

// Each run loop is a turn; Plan-Mode runs record nothing; the system
// prompt function is read at the start of every run loop; a rewind is
// noted in the history.
func TestEngineCheckpointsPerTurnAndSystemPerLoop(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("write_file", map[string]any{"path": "a.txt", "content": "1"})),
			Match: scripted.SystemContains("rule v1")},
		scripted.Turn{Text: "ok"},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "a.txt"})),
			Match: scripted.SystemContains("rule v2")},
		scripted.Turn{Text: "planned nothing"},
	)
	rule := "rule v1"
	e := h.engine(agent.WithSystemPromptFunc(func() string { return rule }))
	wantDone(t, drain(t, e.Run(context.Background(), "write a")), agent.RunCompleted)
	rule = "rule v2"
	e.SetMode(planning.ModePlan)
	drain(t, e.Run(context.Background(), "look"))
	turns, err := e.Turns(context.Background())
	if err != nil || len(turns) != 1 || turns[0].Prompt != "write a" || turns[0].Files[0] != "a.txt" {
		t.Fatalf("turns = %+v, %v", turns, err)
	}
	rep, err := e.Rewind(context.Background(), 1, nil)
	if err != nil || len(rep.Deleted) != 1 {
		t.Fatalf("rewind = %+v, %v", rep, err)
	}
	if _, ok := h.file("a.txt"); ok {
		t.Fatal("a.txt was not deleted")
	}
	hist := e.History()
	if last := hist[len(hist)-1]; last.Role != llm.RoleUser || !strings.Contains(last.Content, "deleted") {
		t.Fatalf("last message = %+v", last)
	}
}
