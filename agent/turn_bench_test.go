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
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness9/harness9/agent"
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
type wireModel struct {
	next, stop atomic.Int64
}

func (m *wireModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, _ := io.Copy(io.Discard, r.Body)
	i := m.next.Add(1)
	w.Header().Set("Content-Type", "text/event-stream")
	const head = `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o","choices":[{"index":0,"delta":`
	emit := func(delta, finish string) {
		fmt.Fprintf(w, "data: %s%s,\"finish_reason\":%s}]}\n\n", head, delta, finish)
	}
	emit(`{"role":"assistant","content":""}`, "null")
	if i < m.stop.Load() {
		emit(`{"content":"Calling the tool once more."}`, "null")
		emit(fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":"noop","arguments":""}}]}`, i), "null")
		emit(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"n\":%d}"}}]}`, i), "null")
		emit(`{}`, `"tool_calls"`)
	} else {
		emit(`{"content":"done"}`, "null")
		emit(`{}`, `"stop"`)
	}
	fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":20,\"total_tokens\":%d}}\n\n", n/4, n/4+20)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// seedTurns writes a session of turns earlier tool-calling turns, shaped
// like the ones wireModel produces, into a new SQLite file at path.
func seedTurns(b *testing.B, path, workdir string, turns int) string {
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
// Each op resumes a fresh copy of the seeded session (not timed) and times
// one run of turnsPerRun turns; ns/turn is the figure to compare between
// N=50 and N=2000 (the target: within 1.5×).
func BenchmarkTurnAt(b *testing.B) {
	for _, n := range []int{50, 2000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			workdir, home := b.TempDir(), b.TempDir()
			seed := filepath.Join(b.TempDir(), "seed.db")
			id := seedTurns(b, seed, workdir, n)
			model := &wireModel{}
			srv := httptest.NewServer(model)
			defer srv.Close()
			p := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithAPIKey("sk-bench"))
			ws, err := tool.NewWorkspace(workdir, tool.WithHome(home))
			if err != nil {
				b.Fatal(err)
			}
			tools := append(builtin.All(ws), tool.New("noop", "does nothing", func(context.Context, struct {
				N int `json:"n"`
			}) (tool.Result, error) {
				return tool.Text("ok"), nil
			}, tool.AsReadOnly()))
			var timed time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				path := filepath.Join(b.TempDir(), "run.db")
				copyFile(b, seed, path)
				st, err := sqlite.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				eng, err := agent.New(p, agent.WithStore(st), agent.WithSession(id), agent.WithModel("gpt-4o"),
					agent.WithWorkdir(workdir), agent.WithPlanFiles(home), agent.WithTools(tools...),
					agent.WithMaxTurns(turnsPerRun+1), agent.WithContextWindow(100_000_000))
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
				b.StartTimer()
				start := time.Now()
				var status agent.RunStatus
				for ev := range eng.Run(context.Background(), "carry on") {
					if d, ok := ev.(agent.Done); ok {
						status = d.Status
					}
				}
				timed += time.Since(start)
				b.StopTimer()
				if status != agent.RunCompleted {
					b.Fatalf("run ended %s", status)
				}
				if got := model.next.Load(); got != turnsPerRun {
					b.Fatalf("the model was called %d times, want %d", got, turnsPerRun)
				}
				_ = st.Close()
			}
			b.ReportMetric(float64(timed.Nanoseconds())/float64(b.N*turnsPerRun), "ns/turn")
		})
	}
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
