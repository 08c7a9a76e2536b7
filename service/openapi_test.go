package service_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"testing"
)

type openAPIDoc struct {
	Paths map[string]map[string]struct {
		Parameters []struct {
			Ref string `json:"$ref"`
		} `json:"parameters"`
		RequestBody *struct {
			Content map[string]struct {
				Example json.RawMessage `json:"example"`
			} `json:"content"`
		} `json:"requestBody"`
	} `json:"paths"`
}

// The OpenAPI document and the routes agree: every documented operation
// is routed to the pattern it documents, every route is documented, and
// the example bodies are accepted by the handlers.
func TestOpenAPIMatchesHandlers(t *testing.T) {
	e := newEnv(t, planScript)
	resp := e.do("GET", "/openapi.json", "", nil)
	if resp.code != 200 {
		t.Fatalf("/openapi.json: %d", resp.code)
	}
	var doc openAPIDoc
	if err := json.Unmarshal([]byte(resp.raw), &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, ops := range doc.Paths {
		for method := range ops {
			pattern := strings.ToUpper(method) + " " + path
			if path == "/" {
				pattern += "{$}"
			}
			documented[pattern] = true
			concrete := strings.NewReplacer("{id}", "x1", "{ask}", "a1", "{file}", "app.js").Replace(path)
			_, got := muxPattern(e, strings.ToUpper(method), concrete)
			if got != pattern {
				t.Errorf("%s %s is routed to %q, want %q", strings.ToUpper(method), concrete, got, pattern)
			}
		}
	}
	var missing []string
	for _, r := range e.srv.Routes() {
		if !documented[r] {
			missing = append(missing, r)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("routes not in /openapi.json: %v", missing)
	}

	// Example bodies, sent against a session whose plan awaits approval.
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	s := e.subscribe(id, e.tokA, "")
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})
	type example struct{ method, path, body string }
	var examples []example
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if op.RequestBody == nil || op.RequestBody.Content["application/json"].Example == nil {
				continue
			}
			examples = append(examples, example{strings.ToUpper(method), path, string(op.RequestBody.Content["application/json"].Example)})
		}
	}
	// The review first, while the plan awaits it; then the rest, each on
	// an idle session.
	sort.Slice(examples, func(i, j int) bool {
		ri, rj := strings.HasSuffix(examples[i].path, "/review"), strings.HasSuffix(examples[j].path, "/review")
		return ri && !rj || ri == rj && examples[i].path < examples[j].path
	})
	for _, ex := range examples {
		body := ex.body
		if ex.path == "/api/sessions" {
			var m map[string]any
			_ = json.Unmarshal([]byte(body), &m)
			m["workdir"] = e.rootA // the example's path does not exist here
			b, _ := json.Marshal(m)
			body = string(b)
		}
		r := e.do(ex.method, strings.NewReplacer("{id}", id, "{ask}", "call_1").Replace(ex.path), e.tokA, body)
		// The permission example names an ask that is not waiting (404);
		// every other example must succeed.
		if r.code == 400 || r.code == 413 || (r.code >= 300 && !strings.Contains(ex.path, "{ask}")) {
			t.Errorf("example for %s %s: %d %s", ex.method, ex.path, r.code, r.raw)
		}
		if r.code < 300 && (strings.HasSuffix(ex.path, "/review") || strings.HasSuffix(ex.path, "/prompt")) {
			s.until("done", nil)
			s.until("state", map[string]any{"running": false})
		}
	}
}

// muxPattern returns the pattern the server's mux picks for a request.
func muxPattern(e *env, method, path string) (http.Handler, string) {
	req := httptest.NewRequest(method, path, nil)
	mux, ok := e.srv.Handler().(*http.ServeMux)
	if !ok {
		e.t.Fatal("the handler is not a ServeMux")
	}
	return mux.Handler(req)
}

// The checked-in document is valid JSON with every path documented once.
func TestOpenAPIFileParses(t *testing.T) {
	b, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil || v["openapi"] == nil {
		t.Fatalf("openapi.json: %v", err)
	}
}
