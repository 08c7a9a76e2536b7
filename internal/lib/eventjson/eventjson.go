// Package eventjson is the JSON form of agent events (DESIGN §4): the
// objects `harness9 run --json` prints one per line and `harness9 serve`
// sends one per Server-Sent Event. Both front ends encode through it, so a
// consumer sees the same vocabulary whichever way it reads a run.
package eventjson

import (
	"bytes"
	"encoding/json"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
)

// Object is a JSON object that keeps its keys in insertion order, so every
// encoded event starts with "type".
type Object []Field

// Field is one key of an Object.
type Field struct {
	Key   string
	Value any
}

// Set appends key/value pairs: Set("id", 1, "name", "x").
func (o Object) Set(kv ...any) Object {
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, Field{kv[i].(string), kv[i+1]})
	}
	return o
}

// Type returns the value of the "type" key, or "".
func (o Object) Type() string {
	for _, f := range o {
		if f.Key == "type" {
			s, _ := f.Value.(string)
			return s
		}
	}
	return ""
}

// MarshalJSON writes the fields in order, without HTML escaping (the
// objects are data, not markup; a web page escapes them where it shows them).
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.Key)
		b.Write(k)
		b.WriteByte(':')
		v, err := Marshal(f.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Marshal encodes v like json.Marshal, without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// TodoItems returns items, or an empty list for nil: todo lists encode as
// [] never null.
func TodoItems(items []planning.TodoItem) []planning.TodoItem {
	if items == nil {
		return []planning.TodoItem{}
	}
	return items
}

// RawOrEmpty returns tool arguments as JSON: {} for none, and malformed
// arguments as a JSON string, so the enclosing object stays valid.
func RawOrEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	if !json.Valid(b) {
		s, _ := json.Marshal(string(b))
		return s
	}
	return b
}

// Event returns ev's JSON object, or nil for events with no JSON form
// (text and reasoning deltas).
func Event(ev agent.Event) Object {
	if n, ok := ev.(agent.Nested); ok {
		// A sub-agent's event: the inner event's object with "parent", the
		// id of the task call that started the sub-agent, after "type".
		inner := Event(n.Event)
		if inner == nil {
			return nil
		}
		return append(Object{inner[0], {"parent", n.Parent}}, inner[1:]...)
	}
	o := Object{{"type", ev.Type()}}
	switch e := ev.(type) {
	case agent.SessionStarted:
		o = o.Set("session_id", e.SessionID, "workdir", e.Workdir, "mode", e.Mode.String())
	case agent.TextDelta, agent.ReasoningDelta, agent.ToolOutput:
		return nil
	case agent.Text:
		o = o.Set("text", e.Text)
	case agent.ToolCall:
		o = o.Set("id", e.ID, "name", e.Name, "input", RawOrEmpty(e.Input))
	case agent.ToolResult:
		o = o.Set("id", e.ID, "name", e.Name, "is_error", e.IsError, "output", e.Output)
		if e.Refused != "" {
			// A boundary of the harness stopped the call (tool.Refusal):
			// a script tells a refusal from a command that failed.
			o = o.Set("refused", string(e.Refused))
		}
	case agent.Todos:
		o = o.Set("items", TodoItems(e.Items))
	case agent.PlanSubmitted:
		steps := e.Plan.Steps
		if steps == nil {
			steps = []string{}
		}
		o = o.Set("title", e.Plan.Title, "content", e.Plan.Content, "steps", steps)
	case agent.Approved:
		o = o.Set("task_dir", e.TaskDir)
	case agent.ExecRound:
		o = o.Set("round", e.Round, "done", e.Done, "total", e.Total)
	case agent.Stalled:
		o = o.Set("rounds", e.Rounds)
	case agent.Compacted:
		o = o.Set("before_tokens", e.BeforeTokens, "after_tokens", e.AfterTokens)
		// Why it happened: the request passed threshold_tokens of
		// context_window, fixed_tokens of which every request carries.
		o = o.Set("reason", e.Reason, "summarised", e.Summarised, "elided", e.Elided,
			"threshold_tokens", e.ThresholdTokens, "context_window", e.ContextWindow, "fixed_tokens", e.FixedTokens)
		if e.Fallback {
			// The note says why summarising failed; a successful
			// compaction needs no words beyond its numbers.
			o = o.Set("fallback", true, "note", e.Note)
		}
	case agent.UsageUpdate:
		o = o.Set("input_tokens", e.Usage.InputTokens, "output_tokens", e.Usage.OutputTokens)
		o = o.Set("context_tokens", e.ContextTokens, "context_window", e.ContextWindow)
	case agent.HookReport:
		o = o.Set("event", e.Event, "hook", e.Hook, "blocked", e.Blocked, "message", e.Message)
	case agent.Error:
		o = o.Set("message", e.Message)
	case agent.ModelRetry:
		o = o.Set("attempt", e.Attempt, "wait_ms", e.Wait.Milliseconds(), "message", errText(e.Err))
	case agent.Done:
		o = o.Set("status", string(e.Status))
	case agent.Permission:
		o = o.Set("id", e.ID, "name", e.Name, "decision", string(e.Decision), "rule", e.Rule)
	case *agent.ApprovalRequest:
		o = o.Set("id", e.Call.ID, "name", e.Call.Name, "input", RawOrEmpty(e.Call.Input))
	}
	return o
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
