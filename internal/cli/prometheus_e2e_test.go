package cli_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/proctest"
)

// promInstall is how CI gets the Prometheus server (.ci/run).
const promInstall = "apt-get install prometheus"

// prometheus is a running Prometheus server scraping one target.
type prometheus struct {
	t   *testing.T
	url string
}

// startPrometheus starts a Prometheus server that scrapes target's
// /metrics every second with token as its bearer credentials. Without the
// server the test is skipped, or fails in CI.
func startPrometheus(t *testing.T, target, token string) *prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("prometheus not installed: " + promInstall)
		}
		t.Skip("prometheus not installed: " + promInstall)
	}
	dir := t.TempDir()
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: harness9
    authorization:
      credentials: %q
    static_configs:
      - targets: [%q]
`, token, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + proctest.FreePorts(t, 1)[0]
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr)
	done := proctest.Start(t, cmd, filepath.Join(dir, "prometheus.log"))
	p := &prometheus{t: t, url: "http://" + addr}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(p.url + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		select {
		case <-done:
			t.Fatal("prometheus exited")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("prometheus did not become ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// value runs an instant query through Prometheus's HTTP API and returns
// its single value, or false when it has none (yet).
func (p *prometheus) value(query string) (float64, bool) {
	p.t.Helper()
	resp, err := http.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.Status != "success" {
		p.t.Fatalf("query %s: %v %s", query, err, body.Error)
	}
	if len(body.Data.Result) != 1 {
		return 0, false
	}
	s, _ := body.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// waitValue polls query until it has the wanted value.
func (p *prometheus) waitValue(query string, want float64) {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, ok := p.value(query)
		if ok && v == want {
			return
		}
		if time.Now().After(deadline) {
			p.t.Errorf("%s = %v (%v), want %v", query, v, ok, want)
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// Prometheus scrapes serve's /metrics with an API token after a scripted
// plan → approve → execute session, and its query API returns the
// counters: sessions, turns, tokens, tool calls by tool and decision, plan
// outcomes. /metrics without a token is refused.
func TestPrometheusScrapesServe(t *testing.T) {
	h := newHarness(t)
	root := h.workdir
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte("[serve]\nroots = [\""+root+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(h.run("", "serve", "token", "add", "ci", "--root", root).stdout)
	h.env = append(h.env, "OTEL_METRICS_EXPORTER=prometheus")
	model := h.script(`{"turns": [
	  {"calls": [{"name": "submit_plan", "input": {"title": "One file", "content": "Write done.txt.", "steps": ["write done.txt"]}}], "usage": {"input_tokens": 100, "output_tokens": 10}},
	  {"calls": [{"name": "write_file", "input": {"path": "done.txt", "content": "done"}}], "usage": {"input_tokens": 200, "output_tokens": 20}},
	  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write done.txt", "status": "completed"}]}}], "usage": {"input_tokens": 300, "output_tokens": 30}},
	  {"text": "Finished.", "usage": {"input_tokens": 400, "output_tokens": 40}}]}`)
	s := h.serve(model)
	resp, err := http.Get(s.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics without a token answered %d", resp.StatusCode)
	}
	s.planApproveExecute(token, root, "write done.txt")

	p := startPrometheus(t, strings.TrimPrefix(s.url, "http://"), token)
	p.waitValue(`up{job="harness9"}`, 1)
	p.waitValue(`sum(harness9_sessions_total)`, 1)
	p.waitValue(`sum(harness9_turns_total)`, 4)
	p.waitValue(`sum(harness9_tokens_total{gen_ai_token_type="input"})`, 1000)
	p.waitValue(`sum(harness9_tokens_total{gen_ai_token_type="output"})`, 100)
	p.waitValue(`sum(harness9_tool_calls_total{gen_ai_tool_name="write_file",harness9_tool_decision="allowed",harness9_tool_outcome="ok"})`, 1)
	p.waitValue(`sum(harness9_tool_calls_total)`, 3)
	p.waitValue(`sum(harness9_plans_total{harness9_plan_outcome="submitted"})`, 1)
	p.waitValue(`sum(harness9_plans_total{harness9_plan_outcome="approved"})`, 1)
	p.waitValue(`sum(gen_ai_client_operation_duration_seconds_count{gen_ai_operation_name="chat"})`, 4)
}
