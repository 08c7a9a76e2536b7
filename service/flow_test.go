package service_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harness9/harness9/session"
)

// A plan made over the API is approved over the API and executed: the
// files land on disk and the stream carries the run's JSONL vocabulary.
func TestPlanApproveExecute(t *testing.T) {
	e := newEnv(t, planScript)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	s := e.subscribe(id, e.tokA, "")
	s.until("session", map[string]any{"session_id": id, "mode": "plan"})
	s.until("plan", map[string]any{"title": "Two files"})
	s.until("done", map[string]any{"status": "awaiting_approval"})
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})

	show := e.do("GET", "/api/sessions/"+id, e.tokA, nil)
	if show.code != 200 || show.body["status"] != "awaiting_approval" || show.body["plan"] == nil {
		t.Fatalf("show: %d %s", show.code, show.raw)
	}
	if _, err := os.Stat(filepath.Join(e.rootA, "a.txt")); err == nil {
		t.Fatal("a.txt exists before the plan was approved")
	}
	if r := e.do("POST", "/api/sessions/"+id+"/review", e.tokA, map[string]any{"choice": "approve_auto"}); r.code != 200 {
		t.Fatalf("review: %d %s", r.code, r.raw)
	}
	s.until("approved", nil)
	s.until("done", map[string]any{"status": "completed"})
	items := s.last("todos").data["items"].([]any)
	if len(items) != 2 {
		t.Fatalf("last todos: %v", items)
	}
	for _, it := range items {
		if it.(map[string]any)["status"] != "completed" {
			t.Errorf("todo not completed at the end: %v", it)
		}
	}
	for _, f := range []string{"a.txt", "b.txt"} {
		if b, err := os.ReadFile(filepath.Join(e.rootA, f)); err != nil || len(b) != 1 {
			t.Errorf("%s: %q %v", f, b, err)
		}
	}
	// The status returns to idle, and the outcome stays visible: in the
	// state event the page shows, and in the API.
	s.until("state", map[string]any{"status": "idle", "running": false, "last_run": "completed"})
	if show := e.do("GET", "/api/sessions/"+id, e.tokA, nil); show.body["status"] != "idle" || show.body["last_run"] != "completed" {
		t.Fatalf("after execution, show says %s", show.raw)
	}
	if list := e.do("GET", "/api/sessions", e.tokA, nil); !strings.Contains(list.raw, `"last_run":"completed"`) {
		t.Fatalf("after execution, the listing says %s", list.raw)
	}
	// A second approval of the executed plan is refused.
	if r := e.do("POST", "/api/sessions/"+id+"/review", e.tokA, map[string]any{"choice": "approve_auto"}); r.code != http.StatusConflict {
		t.Fatalf("second review: %d %s", r.code, r.raw)
	}
}

// Two reviewers approve the same plan at once: exactly one approval takes
// effect, the other is told 409, and the plan runs once.
func TestConcurrentApprovalExactlyOnce(t *testing.T) {
	e := newEnv(t, planScript)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	s := e.subscribe(id, e.tokA, "")
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})

	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			codes[i] = e.do("POST", "/api/sessions/"+id+"/review", e.tokA, map[string]any{"choice": "approve_auto"}).code
		}()
	}
	close(start)
	wg.Wait()
	ok, conflicts := 0, 0
	for _, c := range codes {
		switch c {
		case 200:
			ok++
		case 409:
			conflicts++
		}
	}
	if ok != 1 || conflicts != n-1 {
		t.Fatalf("codes %v: want exactly one 200 and %d 409", codes, n-1)
	}
	s.until("done", map[string]any{"status": "completed"})
	s.until("state", map[string]any{"running": false})
	if got := s.count("approved"); got != 1 {
		t.Fatalf("%d approved events, want 1", got)
	}
}

// Restarting the server while a plan awaits approval leaves it resumable:
// the lock is released, and approving through the new server executes it.
func TestRestartThenApprove(t *testing.T) {
	e := newEnv(t, planScript)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	s := e.subscribe(id, e.tokA, "")
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})
	e.stop()
	if _, ok := s.next(); ok {
		// drain: the stream must end at shutdown
		for {
			if _, ok := s.next(); !ok {
				break
			}
		}
	}
	if s.stuck.Load() {
		t.Fatalf("the event stream did not end at shutdown (waited %v)", streamWait)
	}
	l, err := session.AcquireLock(session.LockDir(e.home), id)
	if err != nil {
		t.Fatalf("the lock was not released at shutdown: %v", err)
	}
	_ = l.Release()

	e.start()
	s = e.subscribe(id, e.tokA, "")
	if r := e.do("POST", "/api/sessions/"+id+"/review", e.tokA, map[string]any{"choice": "approve_auto"}); r.code != 200 {
		t.Fatalf("review after restart: %d %s", r.code, r.raw)
	}
	s.until("done", map[string]any{"status": "completed"})
	if _, err := os.Stat(filepath.Join(e.rootA, "b.txt")); err != nil {
		t.Fatal(err)
	}
}

// The event stream resumes after the Last-Event-ID it is given, with
// nothing repeated and nothing lost.
func TestEventsResumeWithLastEventID(t *testing.T) {
	e := newEnv(t, planScript)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan", "prompt": "write two files"})
	s := e.subscribe(id, e.tokA, "")
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})
	all := append([]sse(nil), s.seen...)
	cut := all[1].id
	s2 := e.subscribe(id, e.tokA, cut)
	for i := 2; i < len(all); i++ {
		ev, ok := s2.next()
		if !ok || ev.id != all[i].id || ev.typ != all[i].typ {
			t.Fatalf("resumed event %d = %v (%v), want %v", i, ev, ok, all[i])
		}
	}
}

// Shutting down while a turn runs cancels it the way Ctrl+C does: the
// prompt is saved, the lock released, and a new server runs the session's
// next prompt.
func TestShutdownDuringRun(t *testing.T) {
	// The slow turn answers only the first prompt (a "when" turn), so the
	// run after the restart does not replay it.
	e := newEnv(t, `{"turns": [
  {"when": {"last_user_contains": "first prompt"}, "text": "a very slow answer", "delay_ms": 60000},
  {"text": "second answer"}
]}`)
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "prompt": "first prompt"})
	s := e.subscribe(id, e.tokA, "")
	s.until("session", nil)
	e.stop()
	msgs, err := e.store.Messages(t.Context(), id)
	if err != nil || len(msgs) == 0 || msgs[0].Content != "first prompt" {
		t.Fatalf("after shutdown the session holds %v, %v", msgs, err)
	}
	l, err := session.AcquireLock(session.LockDir(e.home), id)
	if err != nil {
		t.Fatalf("lock still held after shutdown: %v", err)
	}
	_ = l.Release()
	e.start()
	s = e.subscribe(id, e.tokA, "")
	if r := e.do("POST", "/api/sessions/"+id+"/prompt", e.tokA, map[string]any{"prompt": "go on"}); r.code != 202 {
		t.Fatalf("prompt after restart: %d %s", r.code, r.raw)
	}
	s.until("done", map[string]any{"status": "completed"})
}
