package service_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harness9/harness9/service"
	"github.com/harness9/harness9/session"
)

// lockFree reports whether session id's lock can be taken (and gives it
// back at once).
func (e *env) lockFree(id string) bool {
	e.t.Helper()
	l, err := session.AcquireLock(session.LockDir(e.home), id)
	if errors.Is(err, session.ErrBusy) {
		return false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	if err := l.Release(); err != nil {
		e.t.Fatal(err)
	}
	return true
}

// A session with no run and no event stream is released after the idle
// timeout (its engine closed, its lock free for another process); while a
// stream is connected it stays open; a later request opens it again from
// the store and the plan runs to the end.
func TestIdleSessionIsReleasedAndReopened(t *testing.T) {
	e := newEnv(t, planScript)
	e.stop()
	e.start(service.WithIdleTimeout(50 * time.Millisecond))
	// The stream connects before the run starts: a session whose run ended
	// before a stream connected may be released (its ring dropped) by then.
	id := e.create(e.tokA, map[string]any{"workdir": e.rootA, "mode": "plan"})
	s := e.subscribe(id, e.tokA, "")
	if r := e.do("POST", "/api/sessions/"+id+"/prompt", e.tokA, map[string]any{"prompt": "write two files"}); r.code != 202 {
		t.Fatalf("prompt: %d %s", r.code, r.raw)
	}
	s.until("state", map[string]any{"status": "awaiting_approval", "running": false})

	// A connected stream keeps the session open, however late it is.
	service.Sweep(e.srv, time.Now().Add(time.Hour))
	if e.lockFree(id) {
		t.Fatal("the session was released while an event stream was connected")
	}
	s.resp.Body.Close()
	deadline := time.Now().Add(time.Minute)
	for !e.lockFree(id) {
		if time.Now().After(deadline) {
			t.Fatal("the idle session was never released")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Released: the next request opens it again.
	if r := e.do("GET", "/api/sessions/"+id, e.tokA, nil); r.code != 200 || r.body["status"] != "awaiting_approval" {
		t.Fatalf("show after release: %d %s", r.code, r.raw)
	}
	s = e.subscribe(id, e.tokA, "")
	if r := e.do("POST", "/api/sessions/"+id+"/review", e.tokA, map[string]any{"choice": "approve_auto"}); r.code != 200 {
		t.Fatalf("review after release: %d %s", r.code, r.raw)
	}
	s.until("done", map[string]any{"status": "completed"})
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(e.rootA, f)); err != nil {
			t.Errorf("%s after reopening: %v", f, err)
		}
	}
}
