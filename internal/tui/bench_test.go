package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/harness9/harness9/agent"
)

// benchModel returns a model whose transcript holds n messages (user
// prompts, Markdown replies and tool calls), already on screen once.
func benchModel(b *testing.B, n int) *model {
	m := newModel(context.Background(), testOptions(newFake()))
	m.width, m.height = 120, 40
	m.layout()
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			m.tr.add(&block{kind: blockUser, text: fmt.Sprintf("question %d: please look at the parser", i)})
		case 1:
			m.tr.add(&block{kind: blockAssistant, text: fmt.Sprintf("## Answer %d\n\nThe parser **works**; see `parse.go`.\n\n- one\n- two", i)})
		default:
			m.handleEvent(agent.ToolCall{ID: fmt.Sprint(i), Name: "read_file", Input: json.RawMessage(`{"path":"parse.go"}`)})
			m.handleEvent(agent.ToolResult{ID: fmt.Sprint(i), Name: "read_file", Output: "1\tpackage parse\n2\n3\tfunc Parse() {}"})
		}
	}
	_ = m.View()
	return m
}

// BenchmarkTranscriptView measures a frame of an n-message session: the
// transcript alone, and a whole key press (Update + View) while typing a
// prompt of up to 80 characters. The history must come from the cache.
func BenchmarkTranscriptView(b *testing.B) {
	for _, n := range []int{100, 5000} {
		b.Run(fmt.Sprintf("messages=%d/transcript", n), func(b *testing.B) {
			m := benchModel(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_ = m.tr.view()
			}
		})
		b.Run(fmt.Sprintf("messages=%d/keypress-inline", n), func(b *testing.B) {
			// Inline, the history is in the terminal's scrollback: a frame
			// draws the live area only.
			m := benchModel(b, n)
			m.opts.Fullscreen = false
			m.tr.printed = len(m.tr.blocks)
			typeKeys(b, m)
		})
		b.Run(fmt.Sprintf("messages=%d/keypress", n), func(b *testing.B) {
			typeKeys(b, benchModel(b, n))
		})
	}
}

// typeKeys times a key press (Update and View) while a prompt of up to 80
// characters is typed.
func typeKeys(b *testing.B, m *model) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%80 == 0 {
			m.in.take()
		}
		m.Update(keyMsg("x"))
		_ = m.View()
	}
}

// TestTypingDoesNotRerenderHistory checks the cache: after a key press no
// block is rendered again.
func TestTypingDoesNotRerenderHistory(t *testing.T) {
	m := newModel(context.Background(), testOptions(newFake()))
	m.width, m.height = 100, 30
	m.layout()
	for i := 0; i < 200; i++ {
		m.tr.add(&block{kind: blockAssistant, text: fmt.Sprintf("reply **%d**", i)})
	}
	_ = m.View()
	before := make([]*string, len(m.tr.blocks))
	for i, b := range m.tr.blocks {
		if b.lines != nil {
			before[i] = &b.lines[0]
		}
	}
	m.Update(keyMsg("a"))
	_ = m.View()
	for i, b := range m.tr.blocks {
		if before[i] == nil {
			if b.lines != nil {
				t.Fatalf("block %d was rendered by a key press", i)
			}
			continue
		}
		if &b.lines[0] != before[i] {
			t.Fatalf("block %d was re-rendered by a key press", i)
		}
	}
}
