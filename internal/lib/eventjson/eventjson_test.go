package eventjson

import (
	"encoding/json"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

func TestEventObjects(t *testing.T) {
	cases := []struct {
		ev   agent.Event
		want string
	}{
		{agent.Text{Text: "<b>&</b>"}, `{"type":"text","text":"<b>&</b>"}`},
		{agent.Todos{}, `{"type":"todos","items":[]}`},
		{agent.ToolCall{ID: "1", Name: "x", Input: json.RawMessage(`{"a":`)}, `{"type":"tool_call","id":"1","name":"x","input":"{\"a\":"}`},
		{agent.ToolResult{ID: "1", Name: "bash", IsError: true, Output: "exit 1"}, `{"type":"tool_result","id":"1","name":"bash","is_error":true,"output":"exit 1"}`},
		{agent.ToolResult{ID: "2", Name: "read_file", IsError: true, Output: "outside", Refused: tool.RefusedWorkspace},
			`{"type":"tool_result","id":"2","name":"read_file","is_error":true,"output":"outside","refused":"workspace"}`},
		{agent.PlanSubmitted{Plan: planning.Plan{Title: "t"}}, `{"type":"plan","title":"t","content":"","steps":[]}`},
		{agent.Done{Status: agent.RunCompleted}, `{"type":"done","status":"completed"}`},
		{agent.Compacted{BeforeTokens: 3000, AfterTokens: 1500, Summarised: true, Elided: 2, Reason: "threshold", ThresholdTokens: 6400, ContextWindow: 8000, FixedTokens: 4000},
			`{"type":"compacted","before_tokens":3000,"after_tokens":1500,"reason":"threshold","summarised":true,"elided":2,"threshold_tokens":6400,"context_window":8000,"fixed_tokens":4000}`},
		{agent.Compacted{BeforeTokens: 3000, AfterTokens: 2000, Summarised: true, Fallback: true, Note: "summarising failed", Reason: "manual"},
			`{"type":"compacted","before_tokens":3000,"after_tokens":2000,"reason":"manual","summarised":true,"elided":0,"threshold_tokens":0,"context_window":0,"fixed_tokens":0,"fallback":true,"note":"summarising failed"}`},
		{&agent.ApprovalRequest{Call: llm.ToolCall{ID: "c", Name: "bash"}}, `{"type":"approval_request","id":"c","name":"bash","input":{}}`},
	}
	for _, c := range cases {
		b, err := Event(c.ev).MarshalJSON()
		if err != nil || string(b) != c.want {
			t.Errorf("%T: %s, %v; want %s", c.ev, b, err, c.want)
		}
	}
	for _, ev := range []agent.Event{agent.TextDelta{Text: "x"}, agent.ReasoningDelta{}, agent.ToolOutput{}} {
		if Event(ev) != nil {
			t.Errorf("%T has a JSON form; deltas are not sent", ev)
		}
	}
}
