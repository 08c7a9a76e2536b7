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
//
// Some requests do not count the session's turns: the summariser's request
// when the engine compacts the context (a fresh transcript with no assistant
// message), and requests after a compaction, whose history starts with the
// summary and keeps only the recent messages. A turn with "when" answers
// them: it is played for any request meeting all of its conditions, before
// the numbered turns are considered (the first such turn in the file wins),
// and it takes no index, so the other turns keep their numbers:
//
//	{"when": {"system_contains": "You compact the history"}, "text": "Goal: ..."}
//	{"when": {"first_user_contains": "[Conversation Summary]"}, "text": "Done.",
//	 "match": {"first_user_contains": "## Active Tasks"}}
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
	// When routes requests to this turn by their content instead of their
	// number of assistant messages (see File). Match, if also given, is
	// then checked like for any turn.
	When *FileMatch `json:"when,omitempty"`
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
	FirstUserContains      string `json:"first_user_contains,omitempty"`
	AnyMessageContains     string `json:"any_message_contains,omitempty"`
	NoMessageContains      string `json:"no_message_contains,omitempty"`
	// Images, when positive, is the least number of images the request's
	// messages must carry.
	Images int `json:"images,omitempty"`
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
	add(m.FirstUserContains, FirstUserContains)
	add(m.AnyMessageContains, AnyMessageContains)
	add(m.NoMessageContains, NoMessageContains)
	if m.Images > 0 {
		ms = append(ms, HasImages(m.Images))
	}
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
	p := &HistoryProvider{}
	for i, ft := range f.Turns {
		t := ft.Turn()
		if ft.When == nil {
			p.turns = append(p.turns, t)
			continue
		}
		p.routed = append(p.routed, routedTurn{when: ft.When.matcher(), turn: t, pos: i + 1})
	}
	return p, nil
}

// HistoryProvider plays the turn whose index is the number of assistant
// messages in the request, so it needs no state between requests. Turns
// loaded with "when" are tried first (see File).
type HistoryProvider struct {
	turns  []Turn
	routed []routedTurn
}

// routedTurn is a turn played for the requests when accepts.
type routedTurn struct {
	when Matcher
	turn Turn
	pos  int // 1-based position in the file, for error messages
}

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
		for _, r := range p.routed {
			if !r.when(req) {
				continue
			}
			if r.turn.Match != nil && !r.turn.Match(req) {
				yield(llm.Chunk{}, fmt.Errorf("scripted: the when-turn at position %s of the file was chosen but does not match the request; %s",
					label(r.turn, r.pos), describe(req)))
				return
			}
			play(ctx, resolve(r.turn, req), n+1, yield)
			return
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
