package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// What a prompt costs before the model is asked: from the moment the
// editor sends session/prompt to the moment the first request reaches the
// model's server, against `harness9 run --json` from the moment it is
// started. Both talk to a local server on the OpenAI wire that answers at
// once; the metric is the median over b.N prompts, in milliseconds.
//
//	go test ./internal/cli/ -run '^$' -bench 'PromptToRequest|SessionNew' -benchtime 20x

// wireServer answers every chat completion with one short text and sends
// the time each request arrived on arrived.
func wireServer(b *testing.B, arrived chan<- time.Time) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- time.Now()
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1,\"total_tokens\":11}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchEnv is a fresh data directory and workdir, with the model on srv.
func benchEnv(b *testing.B, srv *httptest.Server) (env []string, workdir string) {
	home, workdir := b.TempDir(), b.TempDir()
	return []string{"HOME=" + b.TempDir(), "PATH=" + os.Getenv("PATH"), "HARNESS9_HOME=" + home,
		"OPENAI_API_KEY=bench-key", "OPENAI_BASE_URL=" + srv.URL + "/v1"}, workdir
}

func reportMedian(b *testing.B, samples []time.Duration, unit string) {
	slices.Sort(samples)
	b.ReportMetric(float64(samples[len(samples)/2].Microseconds())/1000, unit)
	b.ReportMetric(0, "ns/op")
}

// benchAgent is `harness9 acp` on the wire server, initialized.
type benchAgent struct {
	b     *testing.B
	in    io.WriteCloser
	lines *bufio.Scanner
}

func startBenchAgent(b *testing.B, env []string) *benchAgent {
	cmd := exec.Command(buildBinary(b, ""), "acp", "-m", "openai/gpt-test")
	cmd.Env = env
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	a := &benchAgent{b: b, in: in, lines: bufio.NewScanner(out)}
	a.lines.Buffer(nil, 16<<20)
	a.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	a.reply(1)
	return a
}

func (a *benchAgent) send(s string) {
	if _, err := io.WriteString(a.in, s+"\n"); err != nil {
		a.b.Fatal(err)
	}
}

func (a *benchAgent) reply(id int) map[string]any {
	for a.lines.Scan() {
		var m map[string]any
		if json.Unmarshal(a.lines.Bytes(), &m) == nil && m["id"] == float64(id) {
			if m["error"] != nil {
				a.b.Fatalf("reply %d: %v", id, m["error"])
			}
			return m["result"].(map[string]any)
		}
	}
	a.b.Fatalf("the agent ended before replying to %d", id)
	return nil
}

func (a *benchAgent) newSession(id int, workdir string) string {
	params, _ := json.Marshal(map[string]any{"cwd": workdir, "mcpServers": []any{}})
	a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":%s}`, id, params))
	return a.reply(id)["sessionId"].(string)
}

func BenchmarkACPPromptToRequest(b *testing.B) {
	arrived := make(chan time.Time, 1)
	env, workdir := benchEnv(b, wireServer(b, arrived))
	a := startBenchAgent(b, env)
	sid := a.newSession(2, workdir)
	var samples []time.Duration
	b.ResetTimer()
	for i := range b.N {
		id := 10 + i
		start := time.Now()
		a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"say ok"}]}}`, id, sid))
		samples = append(samples, (<-arrived).Sub(start))
		a.reply(id)
	}
	b.StopTimer()
	reportMedian(b, samples, "ms/prompt-to-request")
}

// BenchmarkACPSessionNew is what opening a session costs (once per editor
// thread): the set-up `run` does at every start.
func BenchmarkACPSessionNew(b *testing.B) {
	env, workdir := benchEnv(b, wireServer(b, make(chan time.Time, 1)))
	a := startBenchAgent(b, env)
	var samples []time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		a.newSession(10+i, workdir)
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	reportMedian(b, samples, "ms/session-new")
}

func BenchmarkRunJSONPromptToRequest(b *testing.B) {
	bin := buildBinary(b, "")
	arrived := make(chan time.Time, 1)
	srv := wireServer(b, arrived)
	env, workdir := benchEnv(b, srv)
	var samples []time.Duration
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(bin, "run", "--json", "-C", workdir, "-m", "openai/gpt-test", "say ok")
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		samples = append(samples, (<-arrived).Sub(start))
		if err := cmd.Wait(); err != nil {
			b.Fatalf("run: %v\n%s", err, stderr.String())
		}
	}
	b.StopTimer()
	reportMedian(b, samples, "ms/prompt-to-request")
}
