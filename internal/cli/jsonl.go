package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
)

// jsonlWriter encodes agent events as one JSON object per line, in the
// shape of DESIGN §4. It is the only thing that writes to stdout in --json
// mode, and it reads the same event stream the TUI does.
type jsonlWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newJSONLWriter(w io.Writer) *jsonlWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonlWriter{enc: enc}
}

// write encodes ev; events with no JSONL form (text deltas) are skipped.
func (j *jsonlWriter) write(ev agent.Event) error {
	obj := jsonlObject(ev)
	if obj == nil {
		return nil
	}
	return j.writeObject(obj)
}

// writeObject encodes one line.
func (j *jsonlWriter) writeObject(obj object) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.enc.Encode(obj)
}

// object is a JSON object that keeps its keys in insertion order, so every
// line starts with "type".
type object []field

type field struct {
	key   string
	value any
}

func (o object) set(kv ...any) object {
	for i := 0; i+1 < len(kv); i += 2 {
		o = append(o, field{kv[i].(string), kv[i+1]})
	}
	return o
}

// MarshalJSON writes the fields in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		var v bytes.Buffer
		enc := json.NewEncoder(&v)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(f.value); err != nil {
			return nil, err
		}
		b.Write(bytes.TrimRight(v.Bytes(), "\n"))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func todoItems(items []planning.TodoItem) []planning.TodoItem {
	if items == nil {
		return []planning.TodoItem{}
	}
	return items
}

func rawOrEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		if len(b) == 0 {
			return json.RawMessage("{}")
		}
		s, _ := json.Marshal(string(b)) // malformed arguments are shown as a string
		return s
	}
	return b
}

func jsonlObject(ev agent.Event) object {
	o := object{{"type", ev.Type()}}
	switch e := ev.(type) {
	case agent.SessionStarted:
		o = o.set("session_id", e.SessionID, "workdir", e.Workdir, "mode", e.Mode.String())
	case agent.TextDelta, agent.ReasoningDelta, agent.ToolOutput:
		return nil
	case agent.Text:
		o = o.set("text", e.Text)
	case agent.ToolCall:
		o = o.set("id", e.ID, "name", e.Name, "input", rawOrEmpty(e.Input))
	case agent.ToolResult:
		o = o.set("id", e.ID, "name", e.Name, "is_error", e.IsError, "output", e.Output)
	case agent.Todos:
		o = o.set("items", todoItems(e.Items))
	case agent.PlanSubmitted:
		steps := e.Plan.Steps
		if steps == nil {
			steps = []string{}
		}
		o = o.set("title", e.Plan.Title, "content", e.Plan.Content, "steps", steps)
	case agent.Approved:
		o = o.set("task_dir", e.TaskDir)
	case agent.ExecRound:
		o = o.set("round", e.Round, "done", e.Done, "total", e.Total)
	case agent.Stalled:
		o = o.set("rounds", e.Rounds)
	case agent.Compacted:
		o = o.set("before_tokens", e.BeforeTokens, "after_tokens", e.AfterTokens)
		if e.Fallback {
			// The note says why summarising failed; a successful
			// compaction needs no words beyond its numbers.
			o = o.set("fallback", true, "note", e.Note)
		}
	case agent.UsageUpdate:
		o = o.set("input_tokens", e.Usage.InputTokens, "output_tokens", e.Usage.OutputTokens)
		o = o.set("context_tokens", e.ContextTokens, "context_window", e.ContextWindow)
	case agent.HookReport:
		o = o.set("event", e.Event, "hook", e.Hook, "blocked", e.Blocked, "message", e.Message)
	case agent.Error:
		o = o.set("message", e.Message)
	case agent.Done:
		o = o.set("status", string(e.Status))
	case agent.Permission:
		o = o.set("id", e.ID, "name", e.Name, "decision", string(e.Decision), "rule", e.Rule)
	case *agent.ApprovalRequest:
		o = o.set("id", e.Call.ID, "name", e.Call.Name, "input", rawOrEmpty(e.Call.Input))
	}
	return o
}
