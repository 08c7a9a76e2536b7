package cli_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/harness9/harness9/internal/lib/pgtest"
)

// ridesOut approves three planned sessions, lets fault happen while they
// execute, and checks that every run then completes within limit without
// an error, every permission ask is answered once, and every session is
// intact. It returns the sessions and their workdirs.
func ridesOut(t *testing.T, h *harness, s *serveProc, token, root string, limit time.Duration, fault func()) (ids, dirs []string) {
	t.Helper()
	ids, dirs, logs := planned(t, s, token, root, 3)
	for _, id := range ids {
		if code, body := s.post(token, "/api/sessions/"+id+"/review", `{"choice": "approve_auto"}`); code != 200 {
			t.Fatalf("approve: %d %v", code, body)
		}
	}
	for _, l := range logs {
		l.wait(t, "tool_call", "", 2, time.Minute) // executing
	}
	fault()
	for i, l := range logs {
		l.wait(t, "done", "completed", 1, limit)
		if n := l.count("done", "error"); n > 0 {
			t.Errorf("session %s: %d runs ended in error: %v", ids[i], n, l.types())
		}
		l.answered(t)
	}
	for i, id := range ids {
		checkIntact(t, h.stored(id), dirs[i], 3)
	}
	return ids, dirs
}

// pgOutage stops the PostgreSQL server for ten seconds and starts it
// again on the same port (a restart, or a database host that vanished and
// came back). Meanwhile serve's /readyz says the store is not ready; after,
// ready again, by itself.
func pgOutage(t *testing.T, pg *pgtest.Cluster, s *serveProc) {
	t.Helper()
	if err := pg.Down(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if code, body := s.get("", "/readyz"); code != 503 || body["checks"].(map[string]any)["store"] == "ok" {
		t.Errorf("/readyz with the database down: %d %v", code, body)
	}
	if code, _ := s.get("", "/healthz"); code != 200 {
		t.Errorf("/healthz with the database down: %d", code)
	}
	time.Sleep(8 * time.Second)
	if err := pg.Up(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		code, body := s.get("", "/readyz")
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz after the database came back: %d %v", code, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Through the binary: three sessions execute their plans on `serve` (local
// engine) over PostgreSQL, each followed by an event stream, when the
// database goes away for ten seconds. Nobody intervenes: every run ends
// completed, every stream saw each call answered once, every stored session
// is intact, serve holds each session again (another process is told it is
// busy) and stops cleanly.
func TestServeRidesOutAPostgresRestart(t *testing.T) {
	pg := pgtest.Private(t)
	h := newHarness(t)
	h.env = append(h.env, "HARNESS9_STORE="+pg.NewDatabase(t))
	root := t.TempDir()
	token := serveSetup(t, h, root)
	model := h.script(stepsScript(t, 3, "1"))
	s := h.serve(model)
	ids, dirs := ridesOut(t, h, s, token, root, 3*time.Minute, func() { pgOutage(t, pg, s) })
	r := h.run("", "run", "--resume", ids[0], "-C", dirs[0], "-m", model, "hello")
	if r.code != 1 || !strings.Contains(r.stderr, "busy") {
		t.Errorf("run --resume of a session serve holds after the restart: exit %d, %s; want 1 and busy", r.code, r.stderr)
	}
	if c := s.stop(); c != 0 {
		t.Fatalf("serve exited %d\n%s", c, s.logs)
	}
}

// The same outage under `serve --engine temporal` with two workers: the
// workers' steps write to the database; the workflows carry on when it is
// back (a step that failed meanwhile is retried by Temporal, as it would be
// without the store's own retries).
func TestServeTemporalRidesOutAPostgresRestart(t *testing.T) {
	pg := pgtest.Private(t)
	h := newDurableHarness(t)
	h.env = append(h.env, "HARNESS9_STORE="+pg.NewDatabase(t))
	root := t.TempDir()
	token := serveSetup(t, h.harness, root)
	model := h.script(stepsScript(t, 3, "1"))
	h.worker()
	h.worker()
	s := h.serve(model, "--engine", "temporal")
	ridesOut(t, h.harness, s, token, root, 3*time.Minute, func() { pgOutage(t, pg, s) })
}

// Temporal's server restarts (down for ten seconds, same database) while
// three workflows execute, started by `serve --engine temporal` and carried
// out by two workers over the SQLite store: the workers and serve reconnect
// by themselves, every run completes and every session is intact.
func TestServeTemporalRidesOutATemporalRestart(t *testing.T) {
	h := newDurableHarness(t)
	root := t.TempDir()
	token := serveSetup(t, h.harness, root)
	model := h.script(stepsScript(t, 3, "1"))
	h.worker()
	h.worker()
	s := h.serve(model, "--engine", "temporal")
	ridesOut(t, h.harness, s, token, root, 4*time.Minute, func() { h.server.Restart(t, 10*time.Second) })
}

// Sessions serve holds share its store: sixteen sessions awaiting review
// use serve's pool and a few lock connections, not connections of their
// own (each session's runtime used to open a store: a pool and a lock
// connection per session, so a thousand sessions exhausted the server's
// max_connections).
func TestServeSessionsShareTheStoresConnections(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	h := newHarness(t)
	h.env = append(h.env, "HARNESS9_STORE="+dsn)
	root := t.TempDir()
	token := serveSetup(t, h, root)
	s := h.serve(h.script(stepsScript(t, 1, "0")))
	planned(t, s, token, root, 16)
	n := connections(t, dsn)
	// pgxpool's default size is the larger of 4 and the CPUs; the store
	// keeps its session locks on at most 4 more connections.
	if limit := max(4, runtime.NumCPU()) + 4; n > limit {
		t.Errorf("serve holding 16 sessions uses %d connections, want at most %d", n, limit)
	}
}

// A worker's steps share its store too: sessions in as many workdirs as
// it takes to exceed both pools use the worker's pool and serve's, not a
// pool per workdir (each wiring used to open a store of its own and keep
// it, so a worker that had run a few hundred sessions held a few hundred
// connections, past PostgreSQL's max_connections, and every further step
// failed) nor a connection per step.
func TestWorkerSessionsShareTheStoresConnections(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	h := newDurableHarness(t)
	h.env = append(h.env, "HARNESS9_STORE="+dsn)
	root := t.TempDir()
	token := serveSetup(t, h.harness, root)
	h.worker()
	s := h.serve(h.script(stepsScript(t, 1, "0")), "--engine", "temporal")
	// pgxpool's default size is the larger of 4 and the CPUs: one pool
	// for serve, one for the worker, and room for 4 more.
	limit := 2*max(4, runtime.NumCPU()) + 4
	planned(t, s, token, root, limit+4)
	n := connections(t, dsn)
	if n > limit {
		t.Errorf("serve and a worker that ran %d sessions use %d connections, want at most %d", limit+4, n, limit)
	}
}

// connections counts the connections to dsn's database, other than the
// one that asks.
func connections(t *testing.T, dsn string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
