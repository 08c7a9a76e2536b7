package service_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/service"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
)

// planScript plans two steps, then executes them: each step writes a file
// and marks itself done.
const planScript = `{"turns": [
  {"text": "Plan ready.", "calls": [{"name": "submit_plan", "input": {"title": "Two files", "content": "Write **a** and b.", "steps": ["write a.txt", "write b.txt"]}}]},
  {"calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "a"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "in_progress"}]}}]},
  {"calls": [{"name": "write_file", "input": {"path": "b.txt", "content": "b"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "completed"}]}}]},
  {"text": "Both files written."}
]}`

// env is a server over a real SQLite store in a temp dir, two roots with a
// token each.
type env struct {
	t            *testing.T
	home         string
	rootA, rootB string
	tokA, tokB   string
	store        session.Store
	script       string
	srv          *service.Server
	ts           *httptest.Server
	// wrap, when set, wraps the runner the next start gives the server.
	wrap func(service.Runner) service.Runner
}

func newEnv(t *testing.T, script string) *env {
	t.Helper()
	e := &env{t: t, home: t.TempDir(), rootA: t.TempDir(), rootB: t.TempDir()}
	e.script = filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(e.script, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(e.home, "harness9.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e.store = st
	e.tokA, _ = service.NewToken()
	e.tokB, _ = service.NewToken()
	e.start()
	return e
}

// factory assembles each session's engine as serve does (package
// harness), on the script, the store and a lock directory of the env.
func (e *env) factory() service.EngineFactory {
	e.t.Helper()
	p, err := scripted.LoadFile(e.script)
	if err != nil {
		e.t.Fatal(err)
	}
	return service.Assembled(p, session.LockDir(e.home), harness.WithStore(e.store), harness.WithoutSandbox())
}

// start (re)starts the server over the same store.
func (e *env) start(opts ...service.Option) {
	e.t.Helper()
	opts = append([]service.Option{service.WithTokens(
		service.Token{Name: "a", SHA256: service.HashToken(e.tokA), Roots: []string{e.rootA}},
		service.Token{Name: "b", SHA256: service.HashToken(e.tokB), Roots: []string{e.rootB}}),
		service.WithMaxBody(64 << 10)}, opts...)
	var runner service.Runner = service.NewEngineRunner(e.store, e.factory())
	if e.wrap != nil {
		runner = e.wrap(runner)
	}
	srv, err := service.New(runner, e.store, []string{e.rootA, e.rootB}, opts...)
	if err != nil {
		e.t.Fatal(err)
	}
	e.srv = srv
	e.ts = httptest.NewServer(srv.Handler())
	e.t.Cleanup(e.stop)
}

// stop shuts the server down as serve does on SIGTERM.
func (e *env) stop() {
	if e.ts == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		e.t.Errorf("shutdown: %v", err)
	}
	e.ts.Close()
	e.ts = nil
}

type reply struct {
	code int
	body map[string]any
	raw  string
}

func (e *env) do(method, path, token string, body any) reply {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, e.ts.URL+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{code: resp.StatusCode, raw: string(raw)}
	_ = json.Unmarshal(raw, &r.body)
	return r
}

// create makes a session and returns its id.
func (e *env) create(token string, body map[string]any) string {
	e.t.Helper()
	r := e.do("POST", "/api/sessions", token, body)
	if r.code != http.StatusCreated {
		e.t.Fatalf("create: %d %s", r.code, r.raw)
	}
	return r.body["id"].(string)
}

// sse is one event read from a stream.
type sse struct {
	id, typ string
	data    map[string]any
}

type stream struct {
	t    *testing.T
	resp *http.Response
	sc   *bufio.Scanner
	seen []sse
	// stuck is set when a read waited longer than streamWait and the
	// stream was closed to end it.
	stuck atomic.Bool
}

// streamWait bounds one wait for the next event: a test waiting for an
// event that never comes fails with what it saw instead of hanging until
// go test's timeout.
const streamWait = 2 * time.Minute

func (e *env) subscribe(id, token, lastID string) *stream {
	e.t.Helper()
	req, _ := http.NewRequest("GET", e.ts.URL+"/api/sessions/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		e.t.Fatalf("events: %d", resp.StatusCode)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return &stream{t: e.t, resp: resp, sc: sc}
}

// next reads one event; false when the stream ends.
func (s *stream) next() (sse, bool) {
	watchdog := time.AfterFunc(streamWait, func() {
		s.stuck.Store(true)
		s.resp.Body.Close()
	})
	defer watchdog.Stop()
	var ev sse
	for s.sc.Scan() {
		line := s.sc.Text()
		switch {
		case line == "":
			if ev.typ != "" {
				s.seen = append(s.seen, ev)
				return ev, true
			}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.typ = line[7:]
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(line[6:]), &ev.data); err != nil {
				s.t.Fatalf("data is not JSON: %q", line)
			}
		}
	}
	return sse{}, false
}

// until reads events until one of typ whose fields include want.
func (s *stream) until(typ string, want map[string]any) sse {
	s.t.Helper()
	for {
		ev, ok := s.next()
		if !ok && s.stuck.Load() {
			s.t.Fatalf("no %s %v came within %v; seen %v", typ, want, streamWait, s.seen)
		}
		if !ok {
			s.t.Fatalf("the stream ended before %s %v; seen %v", typ, want, s.seen)
		}
		if ev.typ != typ {
			continue
		}
		match := true
		for k, v := range want {
			if ev.data[k] != v {
				match = false
			}
		}
		if match {
			return ev
		}
	}
}

func (s *stream) count(typ string) int {
	n := 0
	for _, ev := range s.seen {
		if ev.typ == typ {
			n++
		}
	}
	return n
}

// last is the newest event of typ seen so far.
func (s *stream) last(typ string) sse {
	s.t.Helper()
	for i := len(s.seen) - 1; i >= 0; i-- {
		if s.seen[i].typ == typ {
			return s.seen[i]
		}
	}
	s.t.Fatalf("no %s event among %v", typ, s.seen)
	return sse{}
}
