package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/storetest"
)

// benchMessage returns the i-th message of a typical agent conversation:
// an assistant turn with reasoning and a tool call, then its tool result
// of a few hundred bytes.
func benchMessage(i int) llm.Message {
	if i%2 == 0 {
		return llm.Message{
			Role:      llm.RoleAssistant,
			Content:   "Reading the file to find where the handler is registered.",
			Reasoning: "The route table lives in server.go; check it before editing.",
			ToolCalls: []llm.ToolCall{{
				ID:    fmt.Sprintf("call_%d", i),
				Name:  "read_file",
				Input: json.RawMessage(fmt.Sprintf(`{"path":"internal/server/file%d.go","offset":1,"limit":200}`, i)),
			}},
		}
	}
	return llm.Message{
		Role:       llm.RoleTool,
		ToolCallID: fmt.Sprintf("call_%d", i-1),
		Name:       "read_file",
		Content:    strings.Repeat("   42\tfunc (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n", 8),
	}
}

func benchStore(b *testing.B) (*Store, string) {
	b.Helper()
	s := openTest(b, filepath.Join(b.TempDir(), "bench.db"))
	b.Cleanup(func() { _ = s.Close() })
	sess := session.Session{Workdir: "/w"}
	if err := s.Create(context.Background(), &sess); err != nil {
		b.Fatal(err)
	}
	return s, sess.ID
}

func BenchmarkAppendMessage(b *testing.B) {
	s, id := benchStore(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		if err := s.AppendMessage(ctx, id, benchMessage(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkLoad10000Messages(b *testing.B) {
	s, id := benchStore(b)
	ctx := context.Background()
	for i := range 10000 {
		if err := s.AppendMessage(ctx, id, benchMessage(i)); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		msgs, err := s.Messages(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		if len(msgs) != 10000 {
			b.Fatalf("loaded %d messages", len(msgs))
		}
	}
}

// BenchmarkListSummaries lists every session with its planning status and
// todo counts, as `sessions list` does, for stores of 1 and 1000 sessions (each with a few
// messages and a saved todo list). The target: 1000 within 1.5×
// of 1 per listed session's fixed cost, i.e. one query however many rows.
func BenchmarkListSummaries(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			s := openTest(b, filepath.Join(b.TempDir(), "bench.db"))
			b.Cleanup(func() { _ = s.Close() })
			ctx := context.Background()
			state := session.State{Todos: []plan.TodoItem{
				{ID: "1", Content: "read the handlers", Status: plan.TodoCompleted},
				{ID: "2", Content: "port them", Status: plan.TodoInProgress},
			}, Status: plan.StatusExecuting,
				// Real sessions carry kilobytes of plan and summary.
				Plan:       &plan.Plan{Title: "port every handler", Content: strings.Repeat("Port the handler, then test it. ", 64)},
				Compaction: &session.Compaction{Summary: strings.Repeat("## Progress\nread the handlers\n", 128), Covered: 40}}
			for range n {
				sess := session.Session{Workdir: "/w", Model: "openai/gpt-4o", Title: "port every handler"}
				if err := s.Create(ctx, &sess); err != nil {
					b.Fatal(err)
				}
				for i := range 4 {
					if err := s.AppendMessage(ctx, sess.ID, benchMessage(i)); err != nil {
						b.Fatal(err)
					}
				}
				if err := s.SaveState(ctx, sess.ID, state); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				list, err := s.ListSummaries(ctx, session.ListOptions{})
				if err != nil || len(list) != n {
					b.Fatalf("listed %d sessions, %v", len(list), err)
				}
			}
		})
	}
}

// BenchmarkLoadWithImages measures what inline images cost a resume: 200
// messages of which imgs carry a 1 MB picture (random bytes: pictures do
// not compress, and each is different).
func BenchmarkLoadWithImages(b *testing.B) {
	for _, imgs := range []int{0, 10} {
		b.Run(fmt.Sprintf("images=%d", imgs), func(b *testing.B) {
			s, id := benchStore(b)
			ctx := context.Background()
			pic := make([]byte, 1<<20)
			for i := range pic {
				pic[i] = byte(i*7919 + i>>8)
			}
			for i := range 200 {
				m := benchMessage(i)
				if i%20 == 1 && i/20 < imgs {
					data := append([]byte{byte(i)}, pic...)
					m.Images = []llm.Image{{MediaType: "image/png", Data: data, Name: "shot.png", Width: 1568, Height: 980}}
				}
				if err := s.AppendMessage(ctx, id, m); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				msgs, err := s.Messages(ctx, id)
				if err != nil {
					b.Fatal(err)
				}
				if len(msgs) != 200 {
					b.Fatalf("loaded %d messages", len(msgs))
				}
			}
		})
	}
}

// BenchmarkAppendAt measures appending a message to a session that already
// holds N messages: the store's share of a turn's cost, which should not
// grow with the session.
func BenchmarkAppendAt(b *testing.B) {
	for _, n := range []int{100, 4000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			s, id := benchStore(b)
			ctx := context.Background()
			for i := range n {
				if err := s.AppendMessage(ctx, id, benchMessage(i)); err != nil {
					b.Fatal(err)
				}
			}
			i := n
			for b.Loop() {
				if err := s.AppendMessage(ctx, id, benchMessage(i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkUsageReport10000 times `harness9 stats` on 10,000 sessions.
func BenchmarkUsageReport10000(b *testing.B) {
	s := openTest(b, filepath.Join(b.TempDir(), "usage.db"))
	b.Cleanup(func() { _ = s.Close() })
	storetest.BenchUsageReport(b, s)
}
