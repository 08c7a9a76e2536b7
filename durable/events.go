package durable

import (
	"encoding/json"
	"fmt"

	"github.com/harness9/harness9/agent"
)

// Envelope is an agent.Event in the form activities return and the
// workflow keeps: its JSONL type name and its fields as JSON. The events
// are the engine's own, produced by the step that ran on the worker; the
// client decodes them back (Decode) and renders them like a local run's.
type Envelope struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// Encode wraps ev. Events that cannot cross a process boundary (an
// approval request, Done, text deltas) report false.
func Encode(ev agent.Event) (Envelope, bool) {
	switch ev.(type) {
	case agent.Done, *agent.ApprovalRequest, agent.TextDelta, agent.ReasoningDelta:
		return Envelope{}, false
	}
	if _, known := decoders[ev.Type()]; !known {
		return Envelope{}, false
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return Envelope{}, false
	}
	return Envelope{Type: ev.Type(), Data: data}, true
}

func encodeAll(evs []agent.Event) []Envelope {
	out := make([]Envelope, 0, len(evs))
	for _, ev := range evs {
		if env, ok := Encode(ev); ok {
			out = append(out, env)
		}
	}
	return out
}

// decoders rebuild each event type Encode passes.
var decoders = map[string]func([]byte) (agent.Event, error){
	"session":     decodeAs[agent.SessionStarted],
	"text":        decodeAs[agent.Text],
	"tool_call":   decodeAs[agent.ToolCall],
	"tool_result": decodeAs[agent.ToolResult],
	"todos":       decodeAs[agent.Todos],
	"plan":        decodeAs[agent.PlanSubmitted],
	"approved":    decodeAs[agent.Approved],
	"exec_round":  decodeAs[agent.ExecRound],
	"stalled":     decodeAs[agent.Stalled],
	"compacted":   decodeAs[agent.Compacted],
	"usage":       decodeAs[agent.UsageUpdate],
	"error":       decodeAs[agent.Error],
	"permission":  decodeAs[agent.Permission],
	"hook":        decodeAs[agent.HookReport],
	// What the workflow records of permission questions (ask.go).
	"permission_ask": func(b []byte) (agent.Event, error) {
		var q Question
		err := json.Unmarshal(b, &q)
		return q.Request(), err
	},
	"permission_answered": decodeAs[PermissionAnswered],
}

func decodeAs[T agent.Event](b []byte) (agent.Event, error) {
	var v T
	err := json.Unmarshal(b, &v)
	return v, err
}

// Decode returns the event env holds.
func (env Envelope) Decode() (agent.Event, error) {
	dec, ok := decoders[env.Type]
	if !ok {
		return nil, fmt.Errorf("durable: unknown event type %q (is the worker newer than this client?)", env.Type)
	}
	ev, err := dec(env.Data)
	if err != nil {
		return nil, fmt.Errorf("durable: malformed %s event: %w", env.Type, err)
	}
	return ev, nil
}
