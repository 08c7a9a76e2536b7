package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/otelcoltest"
)

// telemetryEnv points a harness at a collector, exporting quickly.
func telemetryEnv(h *harness, col *otelcoltest.Collector, extra ...string) {
	h.env = append(h.env, "OTEL_EXPORTER_OTLP_ENDPOINT="+col.HTTP, "OTEL_BSP_SCHEDULE_DELAY=100", "OTEL_METRIC_EXPORT_INTERVAL=300")
	h.env = append(h.env, extra...)
}

// waitSpans polls the collector's file until ok accepts what it received.
func waitSpans(t *testing.T, col *otelcoltest.Collector, what string, ok func([]otelcoltest.Span) bool) []otelcoltest.Span {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		spans := col.Spans(t)
		if ok(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			var names []string
			for _, s := range spans {
				names = append(names, s.Name+" "+s.TraceID[:8])
			}
			t.Fatalf("the collector never received %s; it has:\n%s", what, strings.Join(names, "\n"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitSpansOrLast waits until the collector has what present asks for
// (failing the test if it never does), then up to wait for done as well,
// and returns the spans it last read: the caller's checks say what is
// missing if done never became true.
func waitSpansOrLast(t *testing.T, col *otelcoltest.Collector, wait time.Duration, present, done func([]otelcoltest.Span) bool) []otelcoltest.Span {
	t.Helper()
	spans := waitSpans(t, col, "the session's spans", present)
	deadline := time.Now().Add(wait)
	for !done(spans) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		spans = col.Spans(t)
	}
	return spans
}

func spansNamed(spans []otelcoltest.Span, name string) []otelcoltest.Span {
	var out []otelcoltest.Span
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// secretIn reports the first span that holds secret anywhere.
func secretIn(spans []otelcoltest.Span, secret string) string {
	for _, s := range spans {
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), secret) {
			return string(b)
		}
	}
	return ""
}

// With OTEL_EXPORTER_OTLP_ENDPOINT set, `run --json` of a build with the
// OTLP exporters (-tags temporal has them) exports one trace (the command,
// its agent run, the model call, the tool call) whose id the session event
// carries, a child of TRACEPARENT, and none of the prompt, the file or the
// answer. The default build, which has no exporters, says so on stderr
// and runs as without telemetry: no trace_id.
func TestRunExportsTrace(t *testing.T) {
	col := otelcoltest.Start(t)
	h := newHarness(t)
	const secret = "SECRET-4b1d"
	if err := os.WriteFile(filepath.Join(h.workdir, "notes.txt"), []byte(secret+" in a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := h.script(`{"turns": [
	  {"calls": [{"name": "read_file", "input": {"path": "notes.txt"}}], "usage": {"input_tokens": 120, "output_tokens": 7}},
	  {"text": "` + secret + ` answered", "usage": {"input_tokens": 200, "output_tokens": 9}}]}`)

	cmd := exec.Command(h.binary(), "run", "--json", "-m", model, "-C", h.workdir, "read notes")
	cmd.Env = append(h.env, "OTEL_EXPORTER_OTLP_ENDPOINT="+col.HTTP)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || strings.Contains(stdout.String(), "trace_id") ||
		!strings.Contains(stderr.String(), "go build -tags otlp") {
		t.Fatalf("the default build: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	h.bin = temporalBinary(t)
	model = h.script(`{"turns": [
	  {"calls": [{"name": "read_file", "input": {"path": "notes.txt"}}], "usage": {"input_tokens": 120, "output_tokens": 7}},
	  {"text": "` + secret + ` answered", "usage": {"input_tokens": 200, "output_tokens": 9}}]}`)
	const parentTrace, parentSpan = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	telemetryEnv(h, col, "TRACEPARENT=00-"+parentTrace+"-"+parentSpan+"-01")
	r := h.run("", "run", "--json", "-m", model, "-C", h.workdir, secret+" read notes")
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first["type"] != "session" || first["trace_id"] != parentTrace {
		t.Fatalf("session event %v: want trace_id %s (TRACEPARENT's)", first, parentTrace)
	}
	spans := waitSpans(t, col, "the run's trace", func(s []otelcoltest.Span) bool {
		return len(spansNamed(s, "harness9 run")) == 1 && len(spansNamed(s, "execute_tool read_file")) == 1
	})
	run := spansNamed(spans, "harness9 run")[0]
	agentRun := spansNamed(spans, "invoke_agent harness9")
	if len(agentRun) != 1 || agentRun[0].ParentSpanID != run.SpanID || run.ParentSpanID != parentSpan {
		t.Fatalf("span tree: run %+v, agent %+v", run, agentRun)
	}
	chats := spansNamed(spans, "chat "+strings.TrimPrefix(model, "scripted/"))
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want 2", len(chats))
	}
	for _, c := range chats {
		if c.ParentSpanID != agentRun[0].SpanID || c.TraceID != parentTrace {
			t.Errorf("chat span outside the run: %+v", c)
		}
	}
	if n := chats[0].Attributes["gen_ai.usage.input_tokens"]; n != int64(120) {
		t.Errorf("input tokens %v", n)
	}
	tool := spansNamed(spans, "execute_tool read_file")[0]
	if tool.ParentSpanID != agentRun[0].SpanID || tool.Attributes["harness9.tool.decision"] != "allowed" {
		t.Errorf("tool span %+v", tool)
	}
	if run.Resource["service.name"] != "harness9" || run.Resource["harness9.command"] != "harness9 run" {
		t.Errorf("resource %v", run.Resource)
	}
	if s := secretIn(spans, secret); s != "" {
		t.Errorf("a span holds the prompt, the file or the answer:\n%s", s)
	}
}

// `harness9 stats` adds up the store's usage by day, model or workdir, in
// JSON and as a table, with the [pricing] cost; `sessions show` prints the
// same totals for one session, its sub-agents included.
func TestStatsAndSessionTotals(t *testing.T) {
	h := newHarness(t)
	priced := filepath.Join(t.TempDir(), "priced")
	cfg := fmt.Sprintf("[pricing.%q]\ninput = 2.0\noutput = 10.0\n", "scripted/"+priced)
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	turns := `{"turns": [
	  {"calls": [{"name": "list_files", "input": {}}, {"name": "list_files", "input": {}}], "usage": {"input_tokens": 1000, "output_tokens": 100, "cache_read_tokens": 400}},
	  {"text": "done", "usage": {"input_tokens": 2000, "output_tokens": 200}}]}`
	if err := os.WriteFile(priced, []byte(turns), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.run("", "run", "--json", "-m", "scripted/"+priced, "-C", h.workdir, "look around")
	if r.code != 0 {
		t.Fatalf("run: %d %s %s", r.code, r.stdout, r.stderr)
	}
	var id string
	for line := range strings.Lines(r.stdout) {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil && ev["type"] == "session" {
			id = ev["session_id"].(string)
		}
	}
	other := h.script(`{"turns": [{"text": "hi", "usage": {"input_tokens": 50, "output_tokens": 5}}]}`)
	if r := h.run("", "run", "--json", "-m", other, "-C", h.workdir, "say hi"); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}

	type group struct {
		Key          string  `json:"key"`
		Sessions     int     `json:"sessions"`
		ModelCalls   int     `json:"model_calls"`
		InputTokens  int     `json:"input_tokens"`
		OutputTokens int     `json:"output_tokens"`
		CacheRead    int     `json:"cache_read_tokens"`
		ToolCalls    int     `json:"tool_calls"`
		Cost         float64 `json:"cost_usd"`
		CostKnown    bool    `json:"cost_known"`
	}
	var rep struct {
		By     string  `json:"by"`
		Total  group   `json:"total"`
		Groups []group `json:"groups"`
	}
	s := h.run("", "stats", "--by", "model", "--json")
	if s.code != 0 || json.Unmarshal([]byte(s.stdout), &rep) != nil {
		t.Fatalf("stats: %d %s %s", s.code, s.stdout, s.stderr)
	}
	wantTotal := group{Sessions: 2, ModelCalls: 3, InputTokens: 3050, OutputTokens: 305, CacheRead: 400, ToolCalls: 2,
		Cost: (3000*2.0 + 300*10.0) / 1e6}
	if got := rep.Total; got != wantTotal {
		t.Errorf("total:\n got %+v\nwant %+v", got, wantTotal)
	}
	keys := []string{}
	for _, g := range rep.Groups {
		keys = append(keys, g.Key)
	}
	wantKeys := []string{other, "scripted/" + priced}
	slices.Sort(wantKeys)
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("groups %v", keys)
	}
	if s := h.run("", "stats"); s.code != 0 || !strings.Contains(s.stdout, time.Now().Format(time.DateOnly)) ||
		!strings.Contains(s.stdout, "total") || !strings.Contains(s.stdout, "$0.0090+") {
		t.Errorf("stats table: %d\n%s\n%s", s.code, s.stdout, s.stderr)
	}
	if s := h.run("", "stats", "--since", "tomorrow"); s.code != 2 || !strings.Contains(s.stderr, "--since") {
		t.Errorf("bad --since: %d %s", s.code, s.stderr)
	}
	if s := h.run("", "stats", "--since", "1h", "--by", "workdir", "--json"); s.code != 0 || !strings.Contains(s.stdout, h.workdir) {
		t.Errorf("stats --since 1h --by workdir: %d %s %s", s.code, s.stdout, s.stderr)
	}

	var shown struct {
		Usage group `json:"usage"`
	}
	sh := h.run("", "sessions", "show", id, "--json")
	if sh.code != 0 || json.Unmarshal([]byte(sh.stdout), &shown) != nil {
		t.Fatalf("show: %d %s", sh.code, sh.stderr)
	}
	want := group{Sessions: 1, ModelCalls: 2, InputTokens: 3000, OutputTokens: 300, CacheRead: 400, ToolCalls: 2,
		Cost: (3000*2.0 + 300*10.0) / 1e6, CostKnown: true}
	if shown.Usage != want {
		t.Errorf("sessions show usage:\n got %+v\nwant %+v", shown.Usage, want)
	}
	if sh := h.run("", "sessions", "show", id); !strings.Contains(sh.stdout, "usage    2 model calls, 3000 input tokens (400 cached), 300 output, 2 tool calls, $0.0090") {
		t.Errorf("sessions show:\n%s", sh.stdout)
	}
}
