package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/longrun"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/openai"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// turnsPerRun is how many model turns one timed run of BenchmarkTurnAt
// makes: turnsPerRun-1 tool-calling turns, then a closing text.
const turnsPerRun = 20

// wireModel is a scripted model on the real Chat Completions wire: each
// request body is read whole (as a server would) but not decoded; the
// answer is a streamed tool call to noop until next reaches stop, then a
// closing text. Usage is reported like a real server does.
//
// The model shares the harness's two cores, so its own cost is kept low:
// it reads a body in large chunks into one reused buffer, as a production
// server would, rather than in io.Discard's 8 KiB reads, which at turn 2000
// made the model's reading of the request a cost that grew with the
// session and was counted as the harness's.
type wireModel struct {
	next, stop atomic.Int64
	mu         sync.Mutex // requests arrive one at a time; buf is theirs
	buf        []byte
}

func (m *wireModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := m.read(r.Body)
	i := m.next.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	if i < m.stop.Load() {
		longrun.WriteAnswer(w, int(i), "Calling the tool once more.", "noop", fmt.Sprintf(`{"n":%d}`, i), n)
	} else {
		longrun.WriteAnswer(w, int(i), "", "", "", n)
	}
}

// read reads body to its end and returns its length.
func (m *wireModel) read(body io.Reader) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, _ := longrun.Drain(&m.buf, body)
	return n
}

// seedTurns writes a session of turns earlier tool-calling turns, shaped
// like the ones wireModel produces, into a new SQLite file at path.
func seedTurns(b testing.TB, path, workdir string, turns int) string {
	b.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	s := session.Session{Workdir: workdir, Model: "openai/gpt-4o", Title: "turn bench"}
	if err := st.Create(ctx, &s); err != nil {
		b.Fatal(err)
	}
	add := func(m llm.Message) {
		if err := st.AppendMessage(ctx, s.ID, m); err != nil {
			b.Fatal(err)
		}
	}
	add(llm.Message{Role: llm.RoleUser, Content: "call the tool many times"})
	for i := range turns {
		id := fmt.Sprintf("call_seed_%d", i)
		add(llm.Message{Role: llm.RoleAssistant, Content: "Calling the tool once more.",
			ToolCalls: []llm.ToolCall{{ID: id, Name: "noop", Input: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}}})
		add(llm.Message{Role: llm.RoleTool, ToolCallID: id, Name: "noop", Content: "ok"})
	}
	return s.ID
}

// BenchmarkTurnAt measures the harness's cost per turn once a session
// already holds N turns: a scripted model on the real OpenAI wire (an
// httptest server, the real provider, the SDK's streaming), the builtin
// tools' schemas in every request, every message written to SQLite.
// Each op resumes a fresh copy of the seeded session with a fresh provider
// (not timed) and times one run of turnsPerRun turns; ns/turn is the
// figure to compare between N=50 and N=2000 (the target: within
// 1.5×). cpu-ns/turn is the process's CPU time per turn over the same runs
// (the scripted model's included): on a busy machine the wall clock also
// counts waiting for a core, the CPU time does not.
func BenchmarkTurnAt(b *testing.B) {
	for _, n := range []int{50, 2000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) { benchTurnAt(b, n, nil) })
	}
}

// observe adds telemetry to a benchmarked engine: it wraps the provider and
// returns the options that observe the engine.
type observe func(p llm.Provider) (llm.Provider, []agent.Option)

// benchTurnAt is BenchmarkTurnAt's body for a session of n turns, with
// telemetry when obs is not nil.
func benchTurnAt(b *testing.B, n int, obs observe) {
	workdir, home := b.TempDir(), b.TempDir()
	seed := filepath.Join(b.TempDir(), "seed.db")
	id := seedTurns(b, seed, workdir, n)
	model := &wireModel{}
	srv := httptest.NewServer(model)
	defer srv.Close()
	ws, err := tool.NewWorkspace(workdir, tool.WithHome(home))
	if err != nil {
		b.Fatal(err)
	}
	tools := append(builtin.All(ws), tool.New("noop", "does nothing", func(context.Context, struct {
		N int `json:"n"`
	}) (tool.Result, error) {
		return tool.Text("ok"), nil
	}, tool.AsReadOnly()))
	var timed, cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		// A provider per op, as a process resuming the session has:
		// its cache then holds exactly this op's history.
		var p llm.Provider = openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithAPIKey("sk-bench"))
		var extra []agent.Option
		if obs != nil {
			p, extra = obs(p)
		}
		path := filepath.Join(b.TempDir(), "run.db")
		copyFile(b, seed, path)
		st, err := sqlite.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		eng, err := agent.New(p, append([]agent.Option{agent.WithStore(st), agent.WithSession(id), agent.WithModel("gpt-4o"),
			agent.WithWorkdir(workdir), agent.WithPlanFiles(home), agent.WithTools(tools...),
			agent.WithMaxTurns(turnsPerRun + 1), agent.WithContextWindow(100_000_000)}, extra...)...)
		if err != nil {
			b.Fatal(err)
		}
		// A first, untimed turn encodes the resumed history into the
		// provider's cache, as the first turn after a resume does.
		model.next.Store(0)
		model.stop.Store(0)
		for range eng.Run(context.Background(), "ready?") {
		}
		model.next.Store(0)
		model.stop.Store(turnsPerRun)
		// The setup's garbage (the copied database, the resumed
		// history's decoding) is collected here, not in the timed run.
		runtime.GC()
		b.StartTimer()
		start, cpu0 := time.Now(), processCPU()
		var status agent.RunStatus
		for ev := range eng.Run(context.Background(), "carry on") {
			if d, ok := ev.(agent.Done); ok {
				status = d.Status
			}
		}
		timed += time.Since(start)
		cpu += processCPU() - cpu0
		b.StopTimer()
		if status != agent.RunCompleted {
			b.Fatalf("run ended %s", status)
		}
		if got := model.next.Load(); got != turnsPerRun {
			b.Fatalf("the model was called %d times, want %d", got, turnsPerRun)
		}
		_ = st.Close()
		srv.CloseClientConnections()
	}
	b.ReportMetric(float64(timed.Nanoseconds())/float64(b.N*turnsPerRun), "ns/turn")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*turnsPerRun), "cpu-ns/turn")
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		b.Fatal(err)
	}
}
