package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/sandbox"
)

// A command's output reaches the consumer while the command runs, as
// ToolOutput events for its call, before its ToolResult; the model still
// gets the whole output in the result.
func TestBashOutputStreamsBeforeTheResult(t *testing.T) {
	if !sandbox.Probe().Available {
		t.Skip("Landlock is not available: Default mode would ask before bash")
	}
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("bash", map[string]any{"command": "echo one; sleep 0.3; echo two"}))},
		scripted.Turn{Text: "done", Match: scripted.LastToolResultContains("two")},
	)
	evs := drain(t, h.engine().Run(context.Background(), "run it"))
	wantDone(t, evs, agent.RunCompleted)
	var live strings.Builder
	sawResult := false
	for _, ev := range evs {
		switch e := ev.(type) {
		case agent.ToolOutput:
			if sawResult {
				t.Error("output after the result")
			}
			live.WriteString(e.Text)
		case agent.ToolResult:
			sawResult = true
			if !strings.Contains(e.Output, "one\ntwo") {
				t.Errorf("result %q", e.Output)
			}
		}
	}
	if live.String() != "one\ntwo\n" {
		t.Errorf("streamed output %q", live.String())
	}
	if n := len(ofType[agent.ToolOutput](evs)); n < 2 {
		t.Errorf("%d ToolOutput events: the output did not arrive while the command ran", n)
	}
}
