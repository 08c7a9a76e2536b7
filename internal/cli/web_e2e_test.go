package cli_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
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

// anthropicSearchFake answers POST /v1/messages like Anthropic's Messages
// API does when its web search server tool ran: the results, then text
// citing one of them. It records each request's API key and body.
func anthropicSearchFake(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var (
		mu   sync.Mutex
		seen []string
	)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		key := r.Header.Get("X-Api-Key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" key="+key+" "+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"msg_01","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[
 {"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{"query":"go 1.26 release notes"}},
 {"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[
  {"type":"web_search_result","url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","encrypted_content":"EqgfCioI","page_age":"February 11, 2026"},
  {"type":"web_search_result","url":"https://go.dev/blog/go1.26","title":"Go 1.26 is released","encrypted_content":"EpYH","page_age":"February 11, 2026"},
  {"type":"web_search_result","url":"https://pkg.go.dev/net/http","title":"net/http","encrypted_content":"Eo0B","page_age":null}]},
 {"type":"text","text":"Go 1.26 is out.","citations":[{"type":"web_search_result_location","url":"https://go.dev/doc/go1.26","title":"Go 1.26 Release Notes","encrypted_index":"Eo8B","cited_text":"The latest Go release, version 1.26, arrives six months after Go 1.25."}]}],
 "stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5000,"output_tokens":40,"server_tool_use":{"web_search_requests":1}}}`)
	}))
	t.Cleanup(s.Close)
	return s, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// With [web] search = "anthropic" and only ANTHROPIC_API_KEY set, a
// session whose own model is not Anthropic's (here the scripted one) gets
// web_search, in Plan Mode too; each call is one Messages request to the
// anthropic provider's base URL offering the server tool, and the model
// sees the results as harness9's own tool result. Without the key the tool
// is not offered and nothing is sent.
func TestWebSearchAnthropicE2E(t *testing.T) {
	const key = "sk-ant-e2e-search-key"
	srv, seen := anthropicSearchFake(t)
	script := `{"turns": [
  {"calls": [{"name": "web_search", "input": {"query": "go 1.26 release notes", "count": 2}}]},
  {"text": "found it"}
]}`
	h := newHarness(t)
	writeFile(t, filepath.Join(h.home, "config.toml"), "[web]\nsearch = \"anthropic\"\n")
	h.env = append(h.env, "ANTHROPIC_API_KEY="+key, "ANTHROPIC_BASE_URL="+srv.URL)
	for _, mode := range [][]string{{"--plan"}, nil} {
		args := append([]string{"run", "--json", "-C", h.workdir, "-m", h.script(script)}, mode...)
		r := h.run("", append(args, "what is new in Go 1.26?")...)
		noCrash(t, "run", r)
		if r.code != 0 {
			t.Fatalf("mode %v: exit %d\nstderr:\n%s", mode, r.code, r.stderr)
		}
		res := r.find("tool_result")
		if len(res) != 1 {
			t.Fatalf("mode %v: tool results %v", mode, res)
		}
		out, _ := res[0]["output"].(string)
		if res[0]["is_error"] != false ||
			!strings.Contains(out, "1. Go 1.26 Release Notes\n   https://go.dev/doc/go1.26\n   The latest Go release, version 1.26") ||
			!strings.Contains(out, "2. Go 1.26 is released\n   https://go.dev/blog/go1.26\n   Page age: February 11, 2026") ||
			strings.Contains(out, "3.") || strings.Contains(out, "srvtoolu") || strings.Contains(out, "encrypted") {
			t.Fatalf("mode %v: the model saw %v", mode, res[0])
		}
		if strings.Contains(r.stdout, key) || strings.Contains(r.stderr, key) {
			t.Fatalf("mode %v: the key is in the output", mode)
		}
	}
	reqs := seen()
	if len(reqs) != 2 {
		t.Fatalf("the API saw %d requests, want 2 (one per call): %v", len(reqs), reqs)
	}
	for _, q := range reqs {
		if !strings.HasPrefix(q, "POST /v1/messages key="+key+" ") || !strings.Contains(q, `"type":"web_search_20250305"`) ||
			!strings.Contains(q, `"max_uses":1`) || !strings.Contains(q, `"model":"claude-haiku-4-5"`) || !strings.Contains(q, `go 1.26 release notes`) {
			t.Fatalf("request: %s", q)
		}
	}
	doc := h.run("", "-C", h.workdir, "doctor", "--offline")
	if !strings.Contains(doc.stdout, "web_search: Anthropic's web search tool through claude-haiku-4-5 at "+strings.TrimPrefix(srv.URL, "http://")+", key from ANTHROPIC_API_KEY") ||
		strings.Contains(doc.stdout, key) {
		t.Errorf("doctor:\n%s", doc.stdout)
	}

	// No key: no web_search, no request.
	bare := newHarness(t)
	writeFile(t, filepath.Join(bare.home, "config.toml"), "[web]\nsearch = \"anthropic\"\nsearch_base_url = \""+srv.URL+"\"\n")
	bare.env = append(bare.env, "BRAVE_API_KEY=brave-key")
	r := bare.run("", "run", "--json", "-C", bare.workdir, "-m", bare.script(script), "search")
	noCrash(t, "run", r)
	for _, res := range r.find("tool_result") {
		if res["is_error"] != true || strings.Contains(res["output"].(string), "go.dev") {
			t.Fatalf("without the key web_search ran: %v", res)
		}
	}
	if n := len(seen()); n != 2 {
		t.Fatalf("the API saw %d requests without a key", n-2)
	}
	doc = bare.run("", "-C", bare.workdir, "doctor", "--offline")
	if !strings.Contains(doc.stdout, "web_search: not offered (set ANTHROPIC_API_KEY to an Anthropic API key") {
		t.Errorf("doctor without the key:\n%s", doc.stdout)
	}
}
