package service_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/harness9/harness9/service"
)

// holdScript's run calls bash, which asks for permission: the run holds
// its slot until the test answers (release).
const holdScript = `{"turns": [
  {"calls": [{"name": "bash", "input": {"command": "true"}}]},
  {"text": "Released."}
]}`

// release answers the permission ask the stream's run waits on.
func (e *env) release(s *stream, id, token string) {
	e.t.Helper()
	ask := s.until("permission_ask", nil).data["id"].(string)
	if r := e.do("POST", "/api/sessions/"+id+"/permissions/"+ask, token, map[string]any{"answer": "allow"}); r.code != 200 {
		e.t.Fatalf("answer: %d %s", r.code, r.raw)
	}
}

// limitedEnv is newEnv restarted with limits.
func limitedEnv(t *testing.T, script string, l service.Limits, opts ...service.Option) *env {
	t.Helper()
	e := newEnv(t, script)
	e.stop()
	e.start(append(opts, service.WithLimits(l))...)
	return e
}

func wantTooMany(t *testing.T, r reply, what string) {
	t.Helper()
	if r.code != http.StatusTooManyRequests {
		t.Fatalf("%s: %d %s, want 429", what, r.code, r.raw)
	}
	if r.body["error"] == nil {
		t.Errorf("%s: no error message: %s", what, r.raw)
	}
}

// retryAfter sends a request and returns its status and Retry-After header.
func (e *env) retryAfter(method, path, token string) (int, string) {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.ts.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// One run at a time: a second run waits in the queue (created, 201; its
// position in the API and a queued event on its stream), a third one finds
// the queue full (429, Retry-After, and no session is made), and the queued
// run starts when the first ends. A queued run can be cancelled.
func TestRunsBeyondTheLimitQueue(t *testing.T) {
	e := limitedEnv(t, holdScript, service.Limits{MaxRuns: 1, MaxRunsPerToken: 1, MaxQueued: 2})
	first := e.create(e.tokA, map[string]any{"workdir": e.rootA, "prompt": "hold"})
	s1 := e.subscribe(first, e.tokA, "")
	s1.until("tool_call", nil)
	second := e.create(e.tokA, map[string]any{"workdir": e.rootA, "prompt": "hold too"})
	s2 := e.subscribe(second, e.tokA, "")
	if ev := s2.until("queued", nil); ev.data["position"] != float64(1) {
		t.Fatalf("queued event %v", ev.data)
	}
	if r := e.do("GET", "/api/sessions/"+second, e.tokA, nil); r.body["queue_position"] != float64(1) || r.body["running"] != true {
		t.Fatalf("show of the queued session: %s", r.raw)
	}
	third := e.create(e.tokA, map[string]any{"workdir": e.rootA, "prompt": "and me"})
	if r := e.do("GET", "/api/sessions/"+third, e.tokA, nil); r.body["queue_position"] != float64(2) {
		t.Fatalf("show of the second queued session: %s", r.raw)
	}
	s3 := e.subscribe(third, e.tokA, "")
	if r := e.do("POST", "/api/sessions/"+third+"/cancel", e.tokA, nil); r.code != http.StatusAccepted {
		t.Fatalf("cancel a queued run: %d %s", r.code, r.raw)
	}
	s3.until("done", map[string]any{"status": "cancelled"})
	s3.until("state", map[string]any{"running": false})
	if r := e.do("GET", "/api/sessions/"+third, e.tokA, nil); r.body["queue_position"] != nil || r.body["last_run"] != "cancelled" {
		t.Fatalf("a cancelled queued run: %s", r.raw)
	}
	e.create(e.tokA, map[string]any{"workdir": e.rootA, "prompt": "fills the queue"})
	before := len(e.do("GET", "/api/sessions", e.tokA, nil).body["sessions"].([]any))
	r := e.do("POST", "/api/sessions", e.tokA, map[string]any{"workdir": e.rootA, "prompt": "one too many"})
	wantTooMany(t, r, "a run beyond a full queue")
	if after := len(e.do("GET", "/api/sessions", e.tokA, nil).body["sessions"].([]any)); after != before {
		t.Errorf("the refused create made a session: %d sessions, then %d", before, after)
	}
	e.release(s1, first, e.tokA)
	s1.until("done", map[string]any{"status": "completed"})
	e.release(s2, second, e.tokA)
	s2.until("done", map[string]any{"status": "completed"})
	if s2.count("tool_call") != 1 {
		t.Errorf("the queued run's events: %v", s2.seen)
	}
}

// The per-token limit holds one token's second run back without holding
// back another token's run.
func TestPerTokenLimitDoesNotBlockOtherTokens(t *testing.T) {
	e := limitedEnv(t, holdScript, service.Limits{MaxRuns: 2, MaxRunsPerToken: 1})
	a1 := e.create(e.tokA, map[string]any{"workdir": e.rootA, "prompt": "hold"})
	sa1 := e.subscribe(a1, e.tokA, "")
	sa1.until("tool_call", nil)
	a2 := e.create(e.tokA, map[string]any{"workdir": e.rootA, "prompt": "hold"})
	b1 := e.create(e.tokB, map[string]any{"workdir": e.rootB, "prompt": "hold"})
	sb1 := e.subscribe(b1, e.tokB, "")
	sb1.until("tool_call", nil) // started: not behind a2
	if r := e.do("GET", "/api/sessions/"+a2, e.tokA, nil); r.body["queue_position"] != float64(1) {
		t.Fatalf("token a's second run: %s", r.raw)
	}
	e.release(sb1, b1, e.tokB)
	sb1.until("done", map[string]any{"status": "completed"})
	if r := e.do("GET", "/api/sessions/"+a2, e.tokA, nil); r.body["queue_position"] != float64(1) {
		t.Fatalf("token a's second run started when token b's ended: %s", r.raw)
	}
	sa2 := e.subscribe(a2, e.tokA, "")
	e.release(sa1, a1, e.tokA)
	e.release(sa2, a2, e.tokA)
	sa2.until("done", map[string]any{"status": "completed"})
}

// A token's requests beyond its rate are answered 429 with Retry-After;
// another token is not slowed.
func TestRateLimitPerToken(t *testing.T) {
	e := limitedEnv(t, planScript, service.Limits{Rate: 0.5, Burst: 2})
	for range 2 {
		if r := e.do("GET", "/api/sessions", e.tokA, nil); r.code != 200 {
			t.Fatalf("within the burst: %d", r.code)
		}
	}
	code, after := e.retryAfter("GET", "/api/sessions", e.tokA)
	if code != http.StatusTooManyRequests {
		t.Fatalf("beyond the rate: %d", code)
	}
	if n, err := strconv.Atoi(after); err != nil || n < 1 {
		t.Errorf("Retry-After %q", after)
	}
	wantTooMany(t, e.do("GET", "/api/sessions", e.tokA, nil), "beyond the rate")
	if r := e.do("GET", "/api/sessions", e.tokB, nil); r.code != 200 {
		t.Fatalf("another token: %d", r.code)
	}
	if code, _ := e.retryAfter("GET", "/healthz", ""); code != 200 {
		t.Errorf("/healthz under a token's rate limit: %d", code)
	}
}

// Event streams beyond a session's limit are answered 429 with
// Retry-After; one that closes makes room.
func TestStreamLimitPerSession(t *testing.T) {
	e := limitedEnv(t, planScript, service.Limits{MaxStreams: 2})
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA})
	e.subscribe(id, e.tokA, "")
	third := e.subscribe(id, e.tokA, "")
	code, after := e.retryAfter("GET", "/api/sessions/"+id+"/events", e.tokA)
	if code != http.StatusTooManyRequests || after == "" {
		t.Fatalf("a third stream: %d, Retry-After %q", code, after)
	}
	third.resp.Body.Close()
	for i := 0; ; i++ {
		req, _ := http.NewRequest("GET", e.ts.URL+"/api/sessions/"+id+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+e.tokA)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if i > 200 {
			t.Fatalf("no room after a stream closed: %d", resp.StatusCode)
		}
	}
}

// failingReadier is a runner whose service does not answer.
type failingReadier struct{ service.Runner }

func (failingReadier) Ready(context.Context) error { return errors.New("connection refused") }
func (failingReadier) ReadyName() string           { return "temporal" }

// /healthz answers while the process serves; /readyz checks the store and
// the runner's service and names what is not ready, without a token.
func TestHealthAndReadiness(t *testing.T) {
	e := newEnv(t, planScript)
	if r := e.do("GET", "/healthz", "", nil); r.code != 200 || r.body["status"] != "ok" {
		t.Fatalf("/healthz: %d %s", r.code, r.raw)
	}
	r := e.do("GET", "/readyz", "", nil)
	if r.code != 200 || r.body["status"] != "ready" || r.body["checks"].(map[string]any)["store"] != "ok" {
		t.Fatalf("/readyz: %d %s", r.code, r.raw)
	}
	// A runner whose service is down: not ready, and it says which.
	srv, err := service.New(failingReadier{service.NewEngineRunner(e.store, e.factory())}, e.store, []string{e.rootA},
		service.WithTokens(service.Token{Name: "a", SHA256: service.HashToken(e.tokA), Roots: []string{e.rootA}}))
	if err != nil {
		t.Fatal(err)
	}
	rec := httpGet(t, srv, "/readyz")
	if rec.code != http.StatusServiceUnavailable || !contains(rec.body, `"temporal":"connection refused"`) || !contains(rec.body, `"store":"ok"`) {
		t.Fatalf("/readyz with the runner down: %d %s", rec.code, rec.body)
	}
	// A store that cannot be read: not ready, naming the store.
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	r = e.do("GET", "/readyz", "", nil)
	if r.code != http.StatusServiceUnavailable || r.body["checks"].(map[string]any)["store"] == "ok" {
		t.Fatalf("/readyz with the store closed: %d %s", r.code, r.raw)
	}
	if r := e.do("GET", "/healthz", "", nil); r.code != 200 {
		t.Fatalf("/healthz with the store closed: %d", r.code)
	}
	// Shutting down: not ready.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = srv.Shutdown(ctx)
	if rec := httpGet(t, srv, "/readyz"); rec.code != http.StatusServiceUnavailable || !contains(rec.body, "shutting down") {
		t.Fatalf("/readyz while shutting down: %d %s", rec.code, rec.body)
	}
}

type recorded struct {
	code int
	body string
}

// httpGet serves one GET on srv's handler.
func httpGet(t *testing.T, srv *service.Server, path string) recorded {
	t.Helper()
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return recorded{code: rec.Code, body: rec.Body.String()}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
