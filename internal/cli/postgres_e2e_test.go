package cli_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/lib/pgtest"
	"github.com/harness9/harness9/llm"
)

// pgSecret is the password in the tests' store URLs. The throwaway cluster
// trusts every local connection, so it is accepted and never checked, and
// it must appear in no output.
const pgSecret = "pw-Secret-1"

// withPassword puts pgSecret into dsn's user part.
func withPassword(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), pgSecret)
	return u.String()
}

// host is a second machine: its own data directory (so its own lock files,
// which the first one cannot see), the same workdir and database.
func (h *harness) host(t *testing.T) *harness {
	o := &harness{t: t, home: t.TempDir(), workdir: h.workdir}
	o.env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "HARNESS9_HOME=" + o.home}
	return o
}

func noSecret(t *testing.T, what string, outs ...string) {
	t.Helper()
	for _, o := range outs {
		if strings.Contains(o, pgSecret) {
			t.Errorf("%s shows the store's password:\n%s", what, o)
		}
	}
}

// Two "hosts" (separate data directories) share one PostgreSQL store: a
// session run on one is listed, shown and resumed on the other; while one
// runs it the other is refused as busy with the runner's pid; a runner
// killed with SIGKILL leaves no lock behind; nothing goes to SQLite.
func TestPostgresStoreAcrossHosts(t *testing.T) {
	dsn := withPassword(t, pgtest.NewDatabase(t))
	a := newHarness(t)
	b := a.host(t)
	b.env = append(b.env, "HARNESS9_STORE="+dsn) // b by env, a by flag
	model := a.script(`{"turns": [{"text": "first"},
	  {"calls": [{"name": "bash", "input": {"command": "env; while [ ! -f release ]; do sleep 0.05; done"}}]},
	  {"text": "released"}, {"text": "fourth"}]}`)

	r := a.run("", "run", "--store", dsn, "--json", "-C", a.workdir, "-m", model, "one")
	if r.code != 0 {
		t.Fatalf("run on a: exit %d: %s", r.code, r.stderr)
	}
	id := r.find("session")[0]["session_id"].(string)
	noSecret(t, "run", r.stdout, r.stderr)

	l := b.run("", "sessions", "list", "--json", "-C", b.workdir)
	var listed []struct {
		ID           string `json:"id"`
		MessageCount int    `json:"message_count"`
	}
	if err := json.Unmarshal([]byte(l.stdout), &listed); l.code != 0 || err != nil || len(listed) != 1 || listed[0].ID != id || listed[0].MessageCount != 2 {
		t.Fatalf("sessions list on b: exit %d, %v\n%s\n%s", l.code, err, l.stdout, l.stderr)
	}

	runner := b.start("run", "--json", "--resume", id, "-C", b.workdir, "-m", model, "B")
	runner.waitFor("tool_call")
	for _, args := range [][]string{
		{"run", "--store", dsn, "--json", "--resume", id, "-C", a.workdir, "-m", model, "A"},
		{"sessions", "--store", dsn, "delete", id},
	} {
		got := a.run("", args...)
		if got.code != 1 || !strings.Contains(got.stderr, "busy") || !strings.Contains(got.stderr, fmt.Sprint(runner.cmd.Process.Pid)) {
			t.Errorf("%v on a while b runs the session: exit %d, stderr %q; want 1, busy, pid %d", args[:2], got.code, got.stderr, runner.cmd.Process.Pid)
		}
		noSecret(t, "busy message", got.stderr)
	}
	if err := os.WriteFile(filepath.Join(a.workdir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code := runner.wait(); code != 0 {
		t.Fatalf("b's run: exit %d: %s", code, runner.stderr.String())
	}
	d := b.show(id)
	var users []string
	for _, m := range d.Messages {
		if m.Role == llm.RoleUser {
			users = append(users, m.Content)
		}
	}
	if strings.Join(users, ",") != "one,B" || !wellFormed(d.Messages) {
		t.Fatalf("history after the refused writer: users %v, %+v", users, d.Messages)
	}
	// b's bash call printed its environment: HARNESS9_STORE, which holds
	// the password, is not in it.
	var printed bool
	for _, m := range d.Messages {
		if m.Role == llm.RoleTool {
			printed = printed || strings.Contains(m.Content, "HARNESS9_HOME=")
			noSecret(t, "a command's environment", m.Content)
		}
	}
	if !printed {
		t.Errorf("the bash call did not print its environment: %+v", d.Messages)
	}

	// SIGKILL inside the model call; the server drops the dead process's
	// connection and its lock with it, on its own schedule: retry while
	// busy, bounded.
	k := b.start("run", "--json", "--resume", id, "-C", b.workdir, "-m", b.script(`{"turns": [{"text": "1"}, {"text": "2"}, {"text": "3"}, `+slowTurn+`]}`), "K")
	k.waitFor("session") // the lock is taken before the session event
	k.kill()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r = a.run("", "run", "--store", dsn, "--json", "--resume", id, "-C", a.workdir, "-m", model, "after the kill")
		if r.code == 0 {
			break
		}
		if !strings.Contains(r.stderr, "busy") || time.Now().After(deadline) {
			t.Fatalf("resume after kill -9: exit %d: %s\n%s", r.code, r.stderr, r.stdout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if d := b.show(id); !wellFormed(d.Messages) || d.Messages[len(d.Messages)-1].Content != "fourth" {
		t.Fatalf("history after kill and resume: %+v", d.Messages)
	}

	for _, h := range []*harness{a, b} {
		for _, name := range []string{"harness9.db", "locks"} {
			if _, err := os.Stat(filepath.Join(h.home, name)); err == nil {
				t.Errorf("%s was created in a data directory although the store is PostgreSQL", name)
			}
		}
	}

	doc := b.run("", "doctor", "--offline", "-C", b.workdir)
	if !strings.Contains(doc.stdout, "PostgreSQL postgres://postgres:xxxxx@") || !strings.Contains(doc.stdout, "1 sessions") {
		t.Errorf("doctor does not show the store:\n%s", doc.stdout)
	}
	noSecret(t, "doctor", doc.stdout, doc.stderr)
}

// A store that cannot be reached fails clearly, without the password, and
// a store setting that is not one is a usage error that does not echo it.
func TestPostgresStoreErrors(t *testing.T) {
	pgtest.Shared(t) // the same skip or failure as the other tests when PostgreSQL is missing
	h := newHarness(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf("postgres://bob:%s@%s/h9?connect_timeout=3", pgSecret, l.Addr())
	l.Close()
	model := h.script(`{"turns": [{"text": "never"}]}`)
	r := h.run("", "run", "--store", dead, "--json", "-C", h.workdir, "-m", model, "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "bob:xxxxx@") || len(r.events) != 0 {
		t.Errorf("run with an unreachable store: exit %d, events %v, stderr %q; want 1, the redacted URL, no events", r.code, r.events, r.stderr)
	}
	noSecret(t, "run with an unreachable store", r.stdout, r.stderr)
	doc := h.run("", "doctor", "--offline", "--store", dead, "-C", h.workdir)
	if doc.code != 1 || !strings.Contains(doc.stdout, "unreachable") {
		t.Errorf("doctor with an unreachable store: exit %d\n%s", doc.code, doc.stdout)
	}
	noSecret(t, "doctor", doc.stdout, doc.stderr)

	bad := h.run("", "sessions", "list", "--store", "postgre://bob:"+pgSecret+"@db/h9")
	if bad.code != 2 || !strings.Contains(bad.stderr, "postgres://") {
		t.Errorf("a mistyped store: exit %d, stderr %q; want 2 naming the accepted forms", bad.code, bad.stderr)
	}
	noSecret(t, "a mistyped store", bad.stdout, bad.stderr)
}
