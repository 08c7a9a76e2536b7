package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/harness9/harness9/internal/lib/pgtest"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/storetest"
)

// The benchmarks mirror session/sqlite's (same names, same messages), so
// `go test -bench . ./session/sqlite ./session/postgres` compares them.
// The server is the local throwaway cluster over TCP on 127.0.0.1, with
// fsync off: a floor for the protocol's round trips, not a disk benchmark.

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
	s := openTest(b, pgtest.NewDatabase(b))
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

func BenchmarkListSummaries(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			s := openTest(b, pgtest.NewDatabase(b))
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

// BenchmarkUsageReport10000 times `harness9 stats` on 10,000 sessions.
func BenchmarkUsageReport10000(b *testing.B) {
	storetest.BenchUsageReport(b, openTest(b, pgtest.NewDatabase(b)))
}
