package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
)

// resumeMessage is the i-th message of a typical agent session: an
// assistant turn with a tool call, then its result of about 600 bytes. salt
// makes every session's texts new, so the token estimator's cache does not
// carry over from one resumed session to the next (a real resume is a new
// process with an empty cache).
func resumeMessage(salt, i int) llm.Message {
	if i%2 == 0 {
		return llm.Message{
			Role:    llm.RoleAssistant,
			Content: fmt.Sprintf("Reading file %d of session %d to find where the handler is registered.", i, salt),
			ToolCalls: []llm.ToolCall{{
				ID:    fmt.Sprintf("call_%d", i),
				Name:  "read_file",
				Input: json.RawMessage(fmt.Sprintf(`{"path":"internal/server/file%d_%d.go"}`, salt, i)),
			}},
		}
	}
	return llm.Message{
		Role: llm.RoleTool, ToolCallID: fmt.Sprintf("call_%d", i-1), Name: "read_file",
		Content: fmt.Sprintf("   %d\t// session %d\n", i, salt) +
			strings.Repeat("   42\tfunc (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n", 8),
	}
}

// firstRequest is a provider that records when the first request arrives
// and answers every request with a short text.
type firstRequest struct {
	at   time.Time
	msgs int
}

func (p *firstRequest) Name() string { return "first-request" }

func (p *firstRequest) Stream(_ context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	if p.at.IsZero() {
		p.at, p.msgs = time.Now(), len(req.Messages)
	}
	return func(yield func(llm.Chunk, error) bool) {
		if yield(llm.Chunk{Kind: llm.ChunkText, Text: "ok"}, nil) {
			yield(llm.Chunk{Kind: llm.ChunkStop, StopReason: llm.StopEndTurn}, nil)
		}
	}
}

// seedSession writes a session of n messages, started in workdir, to a
// new SQLite file and returns the file and the session's id. With
// compacted, a stored summary covers all but the newest 11 messages, as
// after a compaction.
func seedSession(b testing.TB, workdir string, salt, n int, compacted bool) (string, string) {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "harness9.db")
	st, err := sqlite.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s := session.Session{Workdir: workdir, Model: "test/model", Title: "resume bench"}
	if err := st.Create(ctx, &s); err != nil {
		b.Fatal(err)
	}
	if err := st.AppendMessage(ctx, s.ID, llm.Message{Role: llm.RoleUser, Content: "port every handler"}); err != nil {
		b.Fatal(err)
	}
	for i := range n - 2 {
		if err := st.AppendMessage(ctx, s.ID, resumeMessage(salt, i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.AppendMessage(ctx, s.ID, llm.Message{Role: llm.RoleAssistant, Content: "Read them all."}); err != nil {
		b.Fatal(err)
	}
	if compacted {
		c := &session.Compaction{Summary: compact.SummaryHeader + "\n**Goal**\nPort the handlers.\n\n## Active Tasks\n[>] port the handlers",
			Covered: n - 11, BeforeTokens: 1, AfterTokens: 1}
		if err := st.SaveState(ctx, s.ID, session.State{Compaction: c}); err != nil {
			b.Fatal(err)
		}
	}
	return path, s.ID
}

// BenchmarkResume10000 measures resuming a 10,000-message session in a
// fresh engine: open the SQLite file, agent.New with WithSession (session,
// history and state loaded), then Run until the first model request is
// built and sent (the compaction check estimates the whole context). The
// reported ns/op and ms-to-first-request cover exactly that; the rest of the
// run is not timed. Each iteration resumes a different session so the
// token-estimate cache starts cold, as in a new process. The sessions are
// seeded in the engine's own workdir (a resume from another one is
// refused), and anything short of a completed run whose first request
// holds the expected messages fails the benchmark.
//
//   - full: no stored compaction, a window large enough to hold the history
//     (every message is estimated);
//   - compacted: a stored summary stands in for all but the newest 11.
func BenchmarkResume10000(b *testing.B) {
	const n = 10000
	for _, bc := range []struct {
		name      string
		compacted bool
	}{{"full", false}, {"compacted", true}} {
		b.Run(bc.name, func(b *testing.B) {
			var toFirst time.Duration
			workdir, home := b.TempDir(), b.TempDir()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				path, id := seedSession(b, workdir, i, n, bc.compacted)
				p := &firstRequest{}
				b.StartTimer()
				start := time.Now()
				st, err := sqlite.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				eng, err := agent.New(p, agent.WithStore(st), agent.WithSession(id), agent.WithModel("m"),
					agent.WithWorkdir(workdir), agent.WithPlanFiles(home),
					agent.WithContextWindow(10_000_000), agent.WithCompactor(compact.New(p, "m")))
				if err != nil {
					b.Fatalf("cannot resume the seeded session: %v", err)
				}
				var status agent.RunStatus
				for ev := range eng.Run(context.Background(), "carry on") {
					if p.at.IsZero() {
						continue
					}
					b.StopTimer() // first request sent: stop timing
					if d, ok := ev.(agent.Done); ok {
						status = d.Status
					}
				}
				toFirst += p.at.Sub(start)
				b.StopTimer()
				if status != agent.RunCompleted {
					b.Fatalf("run ended %s", status)
				}
				want := n + 1
				if bc.compacted {
					want = 1 + 11 + 1
				}
				if p.msgs != want {
					b.Fatalf("first request has %d messages, want %d", p.msgs, want)
				}
				_ = st.Close()
			}
			b.ReportMetric(float64(toFirst.Microseconds())/1000/float64(b.N), "ms-to-first-request")
		})
	}
}
