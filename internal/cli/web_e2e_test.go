package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// webPage serves one HTML page and counts the requests it saw.
func webPage(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Local docs</title></head><body>
<h1>Release checklist</h1><p>Run <code>make release</code> after tagging.</p>
<ul><li>tag</li><li>push</li></ul></body></html>`)
	}))
	t.Cleanup(s.Close)
	return s, &hits
}

// fetchRun has the scripted model call web_fetch on url and returns the
// tool result the run recorded.
func fetchRun(t *testing.T, h *harness, url string, extra ...string) map[string]any {
	t.Helper()
	script := fmt.Sprintf(`{"turns": [
  {"calls": [{"name": "web_fetch", "input": {"url": %q}}]},
  {"text": "read it"}
]}`, url)
	args := append([]string{"run", "--json", "-C", h.workdir, "-m", h.script(script)}, extra...)
	r := h.run("", append(args, "read the docs")...)
	noCrash(t, "run", r)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	res := r.find("tool_result")
	if len(res) != 1 {
		t.Fatalf("tool results %v\nstdout:\n%s", res, r.stdout)
	}
	return res[0]
}

// With [web] allow_private the model fetches a local page as markdown in
// Plan Mode (web_fetch is read-only) and in Default mode.
func TestWebFetchThroughTheBinaryE2E(t *testing.T) {
	s, hits := webPage(t)
	h := newHarness(t)
	writeFile(t, filepath.Join(h.home, "config.toml"), "[web]\nallow_private = true\n")
	for _, mode := range [][]string{{"--plan"}, nil} {
		res := fetchRun(t, h, s.URL+"/docs", mode...)
		out, _ := res["output"].(string)
		if res["is_error"] != false || !strings.Contains(out, "# Release checklist") ||
			!strings.Contains(out, "`make release`") || !strings.Contains(out, "- tag") || strings.Contains(out, "<h1>") {
			t.Fatalf("mode %v: the model saw %v", mode, res)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Fatalf("the server saw %d requests, want 2 (one per process)", n)
	}
}

// Without the switch the loopback server is refused before any request,
// and the model is told how the user can allow it; an allow rule for the
// domain lifts the refusal, a deny rule wins over the switch.
func TestWebFetchPrivateRefusedE2E(t *testing.T) {
	s, hits := webPage(t)
	h := newHarness(t)
	for _, mode := range [][]string{{"--plan"}, nil} {
		res := fetchRun(t, h, s.URL+"/docs", mode...)
		out, _ := res["output"].(string)
		if res["is_error"] != true || !strings.Contains(out, "loopback") || !strings.Contains(out, "allow_private") {
			t.Fatalf("mode %v: the model saw %v", mode, res)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server saw %d requests", n)
	}

	res := fetchRun(t, h, s.URL+"/docs", "--allow", "web_fetch(domain:127.0.0.1)")
	if res["is_error"] != false || !strings.Contains(res["output"].(string), "Release checklist") {
		t.Fatalf("with an allow rule for the domain: %v", res)
	}

	writeFile(t, filepath.Join(h.home, "config.toml"), "[web]\nallow_private = true\n")
	res = fetchRun(t, h, s.URL+"/docs", "--deny", "web_fetch(domain:127.0.0.1)")
	if res["is_error"] != true || strings.Contains(res["output"].(string), "Release checklist") {
		t.Fatalf("with a deny rule: %v", res)
	}
	if n := hits.Load(); n != 1 {
		t.Fatalf("the server saw %d requests, want 1", n)
	}
}

// A project's config cannot turn allow_private on.
func TestWebFetchProjectCannotAllowPrivateE2E(t *testing.T) {
	s, hits := webPage(t)
	h := newHarness(t)
	writeFile(t, filepath.Join(h.workdir, ".harness9", "config.toml"), "[web]\nallow_private = true\n")
	script := fmt.Sprintf(`{"turns": [{"calls": [{"name": "web_fetch", "input": {"url": %q}}]}, {"text": "x"}]}`, s.URL)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", h.script(script), "go")
	noCrash(t, "run", r)
	for _, res := range r.find("tool_result") {
		if res["is_error"] != true {
			t.Fatalf("the project's switch was obeyed: %v", res)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the server saw %d requests", n)
	}
}
