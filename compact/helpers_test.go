package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/harness9/harness9/llm"
)

// fakeProvider answers every request with fn's text or error and records the
// requests it saw.
type fakeProvider struct {
	fn   func(llm.Request) (string, error)
	mu   sync.Mutex
	reqs []llm.Request
}

func (f *fakeProvider) Name() string { return "fake" }

func (f *fakeProvider) Stream(_ context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		f.mu.Unlock()
		text, err := f.fn(req)
		if err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		if !yield(llm.Chunk{Kind: llm.ChunkText, Text: text}, nil) {
			return
		}
		yield(llm.Chunk{Kind: llm.ChunkStop, StopReason: llm.StopEndTurn}, nil)
	}
}

// todoList is a TodoInjector over fixed lines.
type todoList string

func (t todoList) FormatForInjection() string { return string(t) }

func user(s string) llm.Message { return llm.Message{Role: llm.RoleUser, Content: s} }
func text(s string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Content: s} }

func calls(ids ...string) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant, Content: "working"}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)})
	}
	return m
}

func result(id string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "read_file", Content: "package a"}
}

// pairsIntact reports whether splitting at k separates no tool result in
// history[k:] from the assistant message that called it, using the same
// positional rule as the production code but written independently: walk
// back from each result to the nearest assistant message with calls.
func pairsIntact(history []llm.Message, k int) error {
	if k < len(history) && history[k].Role == llm.RoleTool {
		return fmt.Errorf("history[%d] is a tool result", k)
	}
	for j := k; j < len(history); j++ {
		if history[j].Role != llm.RoleTool {
			continue
		}
		for i := j - 1; i >= 0; i-- {
			m := history[i]
			if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
				continue
			}
			if i < k {
				return fmt.Errorf("result %d (%s) answers call in %d, before the split %d", j, history[j].ToolCallID, i, k)
			}
			break
		}
	}
	return nil
}

// session builds a synthetic agent session of n turns: every tenth turn a
// user prompt, otherwise an assistant message calling two tools, their
// results (a 25-line Go file of about 2.5 KB and a short diff) and a short remark.
func session(turns int) []llm.Message {
	var h []llm.Message
	for i := range turns {
		if i%10 == 0 {
			h = append(h, user(fmt.Sprintf("Step %d: please implement handler %d and add tests for it.", i/10, i)))
		}
		id1, id2 := fmt.Sprintf("call_%d_a", i), fmt.Sprintf("call_%d_b", i)
		h = append(h, llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("Reading the handler %d and its test.", i), ToolCalls: []llm.ToolCall{
			{ID: id1, Name: "read_file", Input: json.RawMessage(fmt.Sprintf(`{"path":"internal/handler/h%d.go"}`, i))},
			{ID: id2, Name: "edit_file", Input: json.RawMessage(fmt.Sprintf(`{"path":"internal/handler/h%d.go","old_string":"return nil","new_string":"return err"}`, i))},
		}})
		h = append(h,
			llm.Message{Role: llm.RoleTool, ToolCallID: id1, Name: "read_file", Content: goSource(i, 25)},
			llm.Message{Role: llm.RoleTool, ToolCallID: id2, Name: "edit_file", Content: fmt.Sprintf("--- a/h%d.go\n+++ b/h%d.go\n@@ -10 +10 @@\n-\treturn nil\n+\treturn err\n", i, i)},
			text(fmt.Sprintf("Handler %d now propagates the error; next I will run the tests.", i)),
		)
	}
	return h
}

func goSource(seed, lines int) string {
	var b strings.Builder
	for l := range lines {
		fmt.Fprintf(&b, "%4d\tfunc handler%d_%d(ctx context.Context, req *Request) (*Response, error) { return process(ctx, req, %d) }\n", l+1, seed, l, l*seed)
	}
	return b.String()
}
