package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
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
