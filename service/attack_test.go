package service_test

import (
	"github.com/harness9/harness9/service"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A token for root A cannot see or touch a session in root B, whatever
// path it takes: show, events, review, prompt, cancel, list, or a create
// whose workdir leads into B by "..", a symlink or a prefix.
func TestTokenCannotReachAnotherRoot(t *testing.T) {
	e := newEnv(t, planScript)
	idB := e.create(e.tokB, map[string]any{"workdir": e.rootB, "mode": "plan", "prompt": "write two files"})
	sb := e.subscribe(idB, e.tokB, "")
	sb.until("state", map[string]any{"status": "awaiting_approval", "running": false})

	for _, c := range []struct{ method, path string }{
		{"GET", "/api/sessions/" + idB},
		{"GET", "/api/sessions/" + idB + "/events"},
		{"POST", "/api/sessions/" + idB + "/review"},
		{"POST", "/api/sessions/" + idB + "/prompt"},
		{"POST", "/api/sessions/" + idB + "/cancel"},
		{"POST", "/api/sessions/" + idB + "/continue"},
		{"POST", "/api/sessions/" + idB + "/permissions/call_1"},
		{"GET", "/api/sessions/" + idB[:8]}, // a prefix does not reach it either
	} {
		var body any
		switch {
		case strings.HasSuffix(c.path, "/review"):
			body = map[string]any{"choice": "approve_auto"}
		case strings.HasSuffix(c.path, "/prompt"):
			body = map[string]any{"prompt": "rm -rf"}
		case strings.Contains(c.path, "/permissions/"):
			body = map[string]any{"answer": "allow"}
		}
		if r := e.do(c.method, c.path, e.tokA, body); r.code != http.StatusNotFound {
			t.Errorf("%s %s with token A: %d %s, want 404", c.method, c.path, r.code, r.raw)
		}
	}
	list := e.do("GET", "/api/sessions", e.tokA, nil)
	if strings.Contains(list.raw, idB) {
		t.Errorf("token A lists B's session: %s", list.raw)
	}
	// B's plan was not approved by any of that.
	if r := e.do("GET", "/api/sessions/"+idB, e.tokB, nil); r.body["status"] != "awaiting_approval" {
		t.Fatalf("B's session changed: %s", r.raw)
	}
	if _, err := os.Stat(filepath.Join(e.rootB, "a.txt")); err == nil {
		t.Fatal("a file was written in root B")
	}

	link := filepath.Join(e.rootA, "link-to-b")
	if err := os.Symlink(e.rootB, link); err != nil {
		t.Fatal(err)
	}
	sibling := e.rootA + "-evil"
	if err := os.Mkdir(sibling, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sibling) })
	for _, wd := range []string{e.rootB, e.rootA + "/../" + filepath.Base(e.rootB), link, sibling, "/", "relative/dir"} {
		if r := e.do("POST", "/api/sessions", e.tokA, map[string]any{"workdir": wd}); r.code != http.StatusBadRequest {
			t.Errorf("create in %s with token A: %d %s, want 400", wd, r.code, r.raw)
		}
	}
}

func TestAuthAndValidation(t *testing.T) {
	e := newEnv(t, planScript)
	if r := e.do("GET", "/api/sessions", "", nil); r.code != 401 || r.body["error"] == nil {
		t.Errorf("no token: %d %s", r.code, r.raw)
	}
	if r := e.do("GET", "/api/sessions", "h9_wrong", nil); r.code != 401 {
		t.Errorf("wrong token: %d %s", r.code, r.raw)
	}
	// The stored hash is not a token.
	if r := e.do("GET", "/api/sessions", service.HashToken(e.tokA), nil); r.code != 401 {
		t.Errorf("hash as token: %d", r.code)
	}
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan"})
	cases := []struct {
		name, path string
		body       any
		want       int
	}{
		{"unknown field", "/api/sessions", `{"workdir": "` + e.rootA + `", "sudo": true}`, 400},
		{"two objects", "/api/sessions", `{"workdir": "` + e.rootA + `"} {}`, 400},
		{"not JSON", "/api/sessions", `workdir=/`, 400},
		{"empty body", "/api/sessions", ``, 400},
		{"bad mode", "/api/sessions", map[string]any{"workdir": e.rootA, "mode": "yolo"}, 400},
		{"too large", "/api/sessions/" + id + "/prompt", map[string]any{"prompt": strings.Repeat("x", 70<<10)}, 413},
		{"blank prompt", "/api/sessions/" + id + "/prompt", map[string]any{"prompt": "  "}, 400},
		{"bad choice", "/api/sessions/" + id + "/review", map[string]any{"choice": "approve"}, 400},
		{"review without plan", "/api/sessions/" + id + "/review", map[string]any{"choice": "approve_auto"}, 409},
		{"bad answer", "/api/sessions/" + id + "/permissions/x", map[string]any{"answer": "maybe"}, 400},
		{"unknown ask", "/api/sessions/" + id + "/permissions/x", map[string]any{"answer": "allow"}, 404},
		{"cancel idle", "/api/sessions/" + id + "/cancel", nil, 409},
	}
	for _, c := range cases {
		r := e.do("POST", c.path, e.tokA, c.body)
		if r.code != c.want || r.body["error"] == nil {
			t.Errorf("%s: %d %s, want %d with an error", c.name, r.code, r.raw, c.want)
		}
	}
}

// A state change made with the login cookie needs the page's CSRF value:
// another site cannot make a logged-in browser approve a plan.
func TestCookieNeedsCSRF(t *testing.T) {
	e := newEnv(t, planScript)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	s := e.subscribe(id, e.tokA, "")
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})
	req, _ := http.NewRequest("POST", e.ts.URL+"/api/sessions/"+id+"/review", strings.NewReader(`{"choice":"approve_auto"}`))
	req.AddCookie(&http.Cookie{Name: "harness9_token", Value: e.tokA})
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cookie without CSRF: %d, want 403", resp.StatusCode)
	}
	if r := e.do("GET", "/api/sessions/"+id, e.tokA, nil); r.body["status"] != "awaiting_approval" {
		t.Fatalf("the plan was reviewed anyway: %s", r.raw)
	}
	// A login form posted from another site is refused.
	form, _ := http.NewRequest("POST", e.ts.URL+"/login", strings.NewReader("token="+e.tokA))
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	form.Header.Set("Origin", "https://evil.example")
	resp, err = http.DefaultClient.Do(form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-site login: %d", resp.StatusCode)
	}
}

// AutoEdit asks before a write: the ask reaches the stream, nothing is
// written until it is answered, a denial's reason reaches the model, and
// a second answer to the same ask is refused.
func TestPermissionAsk(t *testing.T) {
	e := newEnv(t, `{"turns": [
  {"calls": [{"id": "w1", "name": "write_file", "input": {"path": "x.txt", "content": "x"}}]},
  {"calls": [{"id": "w2", "name": "write_file", "input": {"path": "y.txt", "content": "y"}}]},
  {"text": "ok"}
]}`)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "auto_edit", "prompt": "write"})
	s := e.subscribe(id, e.tokA, "")
	ask := s.until("permission_ask", map[string]any{"id": "w1", "tool": "write_file"})
	if p, _ := ask.data["preview"].(string); p == "" {
		t.Errorf("ask without preview: %v", ask.data)
	}
	if _, err := os.Stat(filepath.Join(e.rootA, "x.txt")); err == nil {
		t.Fatal("x.txt written before the answer")
	}
	if r := e.do("GET", "/api/sessions/"+id, e.tokA, nil); !strings.Contains(r.raw, `"w1"`) {
		t.Errorf("show does not list the pending ask: %s", r.raw)
	}
	if r := e.do("POST", "/api/sessions/"+id+"/permissions/w1", e.tokA, map[string]any{"answer": "deny", "reason": "not that file"}); r.code != 200 {
		t.Fatalf("deny: %d %s", r.code, r.raw)
	}
	if r := e.do("POST", "/api/sessions/"+id+"/permissions/w1", e.tokA, map[string]any{"answer": "allow"}); r.code != 409 {
		t.Fatalf("second answer: %d %s", r.code, r.raw)
	}
	res := s.until("tool_result", map[string]any{"id": "w1"})
	if res.data["is_error"] != true || !strings.Contains(res.data["output"].(string), "not that file") {
		t.Errorf("denied result: %v", res.data)
	}
	s.until("permission_ask", map[string]any{"id": "w2"})
	if r := e.do("POST", "/api/sessions/"+id+"/permissions/w2", e.tokA, map[string]any{"answer": "allow"}); r.code != 200 {
		t.Fatalf("allow: %d %s", r.code, r.raw)
	}
	s.until("done", map[string]any{"status": "completed"})
	if _, err := os.Stat(filepath.Join(e.rootA, "x.txt")); err == nil {
		t.Error("x.txt was written although denied")
	}
	if _, err := os.Stat(filepath.Join(e.rootA, "y.txt")); err != nil {
		t.Errorf("y.txt was not written although allowed: %v", err)
	}
}

// Cancelling a run ends it like Ctrl+C: done cancelled, the session is
// free for the next prompt.
func TestCancelRun(t *testing.T) {
	e := newEnv(t, `{"turns": [
  {"text": "thinking for a long while", "delay_ms": 60000},
  {"text": "again"}
]}`)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "prompt": "slow"})
	s := e.subscribe(id, e.tokA, "")
	s.until("session", nil)
	if r := e.do("POST", "/api/sessions/"+id+"/prompt", e.tokA, map[string]any{"prompt": "another"}); r.code != 409 {
		t.Errorf("prompt while running: %d %s", r.code, r.raw)
	}
	if r := e.do("POST", "/api/sessions/"+id+"/cancel", e.tokA, nil); r.code != 202 {
		t.Fatalf("cancel: %d %s", r.code, r.raw)
	}
	s.until("done", map[string]any{"status": "cancelled"})
	s.until("state", map[string]any{"running": false})
}

// A body that is not UTF-8 is refused, and nothing is created: encoding/json
// would have replaced the bytes with U+FFFD, so the session's title and the
// prompt the model saw would not be what the client sent.
func TestInvalidUTF8Refused(t *testing.T) {
	e := newEnv(t, planScript)
	body := `{"workdir": "` + e.rootA + `", "mode": "plan", "title": "caf` + "\xe9" + `", "prompt": "x` + "\xff\xfe" + `"}`
	r := e.do("POST", "/api/sessions", e.tokA, body)
	if r.code != http.StatusBadRequest || !strings.Contains(r.raw, "UTF-8") {
		t.Fatalf("a body with invalid UTF-8: %d %s, want 400 naming UTF-8", r.code, r.raw)
	}
	if l := e.do("GET", "/api/sessions", e.tokA, nil); strings.Contains(l.raw, "\ufffd") || strings.Contains(l.raw, `"id"`) {
		t.Fatalf("a session was created anyway: %s", l.raw)
	}
}

// A session belongs to the root it was created in. Its workdir replaced
// afterwards by a link into another token's root does not hand it to that
// token: access is decided by the workdir the session was created with, not
// by where a link points now.
func TestReplacedWorkdirDoesNotChangeOwner(t *testing.T) {
	e := newEnv(t, planScript)
	proj := filepath.Join(e.rootA, "proj")
	if err := os.Mkdir(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	id := e.create(e.tokA, map[string]any{"workdir": proj, "mode": "plan", "prompt": "write two files"})
	s := e.subscribe(id, e.tokA, "")
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})

	target := filepath.Join(e.rootB, "x")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(proj); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, proj); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", "/api/sessions/"+id, e.tokB, nil); r.code != http.StatusNotFound {
		t.Errorf("show with token B after the workdir became a link into B's root: %d %.200s, want 404", r.code, r.raw)
	}
	// The event stream: only its status is read (a 200 would stream forever).
	req, _ := http.NewRequest("GET", e.ts.URL+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+e.tokB)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("events with token B: %d, want 404", resp.StatusCode)
	}
	if r := e.do("POST", "/api/sessions/"+id+"/review", e.tokB, map[string]any{"choice": "approve_auto"}); r.code != http.StatusNotFound {
		t.Errorf("review with token B: %d %s, want 404", r.code, r.raw)
	}
	if list := e.do("GET", "/api/sessions", e.tokB, nil); strings.Contains(list.raw, id) {
		t.Errorf("token B lists A's session: %s", list.raw)
	}
	if r := e.do("GET", "/api/sessions/"+id, e.tokA, nil); r.code != http.StatusOK {
		t.Errorf("token A lost its session: %d %s", r.code, r.raw)
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Errorf("files appeared in B's root: %v", entries)
	}
}
