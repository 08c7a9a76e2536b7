package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"time"

	"github.com/harness9/harness9/llm"
)

// File is the JSON form of a script, used by `-m scripted/<path>`:
//
//	{"turns": [
//	  {"text": "Looking around.", "calls": [{"name": "list_files", "input": {}}]},
//	  {"text": "Done.", "match": {"last_tool_result_contains": "README"}}
//	]}
//
// A file script chooses its turn from the request, not from a counter: the
// turn played is the one whose index equals the number of assistant messages
// already in the request's history. That keeps a script in step when a
// session continues in another process (`harness9 run --resume ID`).
type File struct {
	Turns []FileTurn `json:"turns"`
}

// FileTurn is one turn of a File.
type FileTurn struct {
	Name      string     `json:"name,omitempty"`
	Text      string     `json:"text,omitempty"`
	Reasoning string     `json:"reasoning,omitempty"`
	Calls     []FileCall `json:"calls,omitempty"`
	Usage     llm.Usage  `json:"usage"`
	Error     string     `json:"error,omitempty"`
	ChunkSize int        `json:"chunk_size,omitempty"`
	DelayMS   int        `json:"delay_ms,omitempty"`
	Match     *FileMatch `json:"match,omitempty"`
}

// FileCall is a tool call of a FileTurn. Input is any JSON value; a string
// is sent verbatim, so a script can send malformed arguments.
type FileCall struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// FileMatch lists conditions a request must meet; all given ones must hold.
type FileMatch struct {
	HasTool                string `json:"has_tool,omitempty"`
	NoTool                 string `json:"no_tool,omitempty"`
	LastUserContains       string `json:"last_user_contains,omitempty"`
	LastToolResultContains string `json:"last_tool_result_contains,omitempty"`
	SystemContains         string `json:"system_contains,omitempty"`
}

func (m *FileMatch) matcher() Matcher {
	if m == nil {
		return nil
	}
	var ms []Matcher
	add := func(v string, f func(string) Matcher) {
		if v != "" {
			ms = append(ms, f(v))
		}
	}
	add(m.HasTool, HasTool)
	add(m.NoTool, NoTool)
	add(m.LastUserContains, LastUserContains)
	add(m.LastToolResultContains, LastToolResultContains)
	add(m.SystemContains, SystemContains)
	return All(ms...)
}

// Turn converts the JSON form into a Turn.
func (ft FileTurn) Turn() Turn {
	t := Turn{Name: ft.Name, Text: ft.Text, Reasoning: ft.Reasoning, Usage: ft.Usage,
		ChunkSize: ft.ChunkSize, Match: ft.Match.matcher()}
	t.Delay = msDuration(ft.DelayMS)
	if ft.Error != "" {
		t.Err = errors.New(ft.Error)
	}
	for _, c := range ft.Calls {
		call := llm.ToolCall{ID: c.ID, Name: c.Name, Input: c.Input}
		var s string
		if json.Unmarshal(c.Input, &s) == nil {
			call.Input = json.RawMessage(s)
		}
		if len(call.Input) == 0 {
			call.Input = json.RawMessage("{}")
		}
		t.Calls = append(t.Calls, call)
	}
	return t
}

// LoadFile reads a JSON script. The returned provider picks turns by the
// request's history (see File).
func LoadFile(path string) (*HistoryProvider, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scripted: cannot read the script: %w", err)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("scripted: %s is not a valid script: %w", path, err)
	}
	if len(f.Turns) == 0 {
		return nil, fmt.Errorf("scripted: %s has no turns", path)
	}
	turns := make([]Turn, len(f.Turns))
	for i, ft := range f.Turns {
		turns[i] = ft.Turn()
	}
	return NewHistory(turns...), nil
}

// HistoryProvider plays the turn whose index is the number of assistant
// messages in the request, so it needs no state between requests.
type HistoryProvider struct{ turns []Turn }

// NewHistory returns a provider that picks turns by the request's history.
func NewHistory(turns ...Turn) *HistoryProvider {
	return &HistoryProvider{turns: append([]Turn(nil), turns...)}
}

// Name returns "scripted".
func (p *HistoryProvider) Name() string { return "scripted" }

// Stream plays the turn for req.
func (p *HistoryProvider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		n := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleAssistant {
				n++
			}
		}
		if n >= len(p.turns) {
			yield(llm.Chunk{}, fmt.Errorf("scripted: the script has %d turns and the history already holds %d assistant messages; %s",
				len(p.turns), n, describe(req)))
			return
		}
		t := p.turns[n]
		if t.Match != nil && !t.Match(req) {
			yield(llm.Chunk{}, fmt.Errorf("scripted: turn %s does not match the request; %s", label(t, n+1), describe(req)))
			return
		}
		play(ctx, resolve(t, req), n+1, yield)
	}
}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
