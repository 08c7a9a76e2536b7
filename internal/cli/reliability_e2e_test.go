package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
)

// proc is a harness9 process whose JSONL events are read as they come.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	sc     *bufio.Scanner
	stderr bytes.Buffer
	events []map[string]any
}

func (h *harness) start(args ...string) *proc {
	h.t.Helper()
	p := &proc{t: h.t, cmd: exec.Command(h.binary(), args...)}
	p.cmd.Env = h.env
	p.cmd.Stderr = &p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	p.sc = bufio.NewScanner(out)
	p.sc.Buffer(nil, 1<<20)
	return p
}

// next reads one event; false at the end of the output.
func (p *proc) next() (map[string]any, bool) {
	for p.sc.Scan() {
		var m map[string]any
		if json.Unmarshal(p.sc.Bytes(), &m) == nil {
			p.events = append(p.events, m)
			return m, true
		}
	}
	return nil, false
}

// waitFor reads events until one of type typ.
func (p *proc) waitFor(typ string) map[string]any {
	p.t.Helper()
	for {
		ev, ok := p.next()
		if !ok {
			p.t.Fatalf("the process ended before a %q event; events %v\nstderr: %s", typ, p.events, p.stderr.String())
		}
		if ev["type"] == typ {
			return ev
		}
	}
}

// kill sends SIGKILL: nothing in the process gets to clean up.
func (p *proc) kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// wait drains the output and returns the exit code.
func (p *proc) wait() int {
	for {
		if _, ok := p.next(); !ok {
			break
		}
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return 0
}

// wellFormed reports whether every assistant tool call is answered right
// after its message, once, with no tool message anywhere else: what a
// strict provider accepts.
func wellFormed(msgs []llm.Message) bool {
	for i := 0; i < len(msgs); {
		m := msgs[i]
		i++
		if m.Role == llm.RoleTool {
			return false
		}
		want := map[string]bool{}
		for _, c := range m.ToolCalls {
			want[c.ID] = true
		}
		for range m.ToolCalls {
			if i >= len(msgs) || msgs[i].Role != llm.RoleTool || !want[msgs[i].ToolCallID] {
				return false
			}
			delete(want, msgs[i].ToolCallID)
			i++
		}
	}
	return true
}

// slowTurn streams for about two seconds, holding its process inside the
// model call.
const slowTurn = `{"text": "a slow answer, streamed in many small pieces", "chunk_size": 2, "delay_ms": 80}`

// Two processes resuming (or continuing) one session: the second exits 1
// naming the first's pid, writes nothing, and the first finishes with a
// valid history. A lock left by kill -9 is taken over at once.
func TestOneWriterPerSession(t *testing.T) {
	h := newHarness(t)
	// The second turn waits in a bash call until the test creates release:
	// the process holds the session for as long as the test needs.
	model := h.script(`{"turns": [{"text": "first"},
	  {"calls": [{"name": "bash", "input": {"command": "while [ ! -f release ]; do sleep 0.05; done"}}]},
	  {"text": "released"}, {"text": "fourth"}]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "one")
	if r.code != 0 {
		t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
	}
	id := r.find("session")[0]["session_id"].(string)

	a := h.start("run", "--json", "--resume", id, "-C", h.workdir, "-m", model, "A")
	a.waitFor("tool_call")
	for _, args := range [][]string{
		{"run", "--json", "--resume", id, "-C", h.workdir, "-m", model, "B"},
		{"run", "--json", "--continue", "-C", h.workdir, "-m", model, "C"},
		{"sessions", "delete", id},
	} {
		b := h.run("", args...)
		if b.code != 1 || !strings.Contains(b.stderr, "busy") || !strings.Contains(b.stderr, fmt.Sprint(a.cmd.Process.Pid)) {
			t.Errorf("%v while another process runs the session: exit %d, stderr %q; want 1, busy, pid %d",
				args[:2], b.code, b.stderr, a.cmd.Process.Pid)
		}
		if len(b.events) != 0 {
			t.Errorf("%v: the refused process printed events %v", args[:2], b.events)
		}
	}
	if err := os.WriteFile(filepath.Join(h.workdir, "release"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code := a.wait(); code != 0 {
		t.Fatalf("the first writer: exit %d: %s", code, a.stderr.String())
	}
	d := h.show(id)
	var users []string
	for _, m := range d.Messages {
		if m.Role == llm.RoleUser {
			users = append(users, m.Content)
		}
	}
	if strings.Join(users, ",") != "one,A" || len(d.Messages) != 6 || !wellFormed(d.Messages) {
		t.Fatalf("history after the refused writers: users %v, %d messages", users, len(d.Messages))
	}

	// kill -9 inside the model call, then resume at once: not busy.
	k := h.start("run", "--json", "--resume", id, "-C", h.workdir, "-m", h.script(`{"turns": [{"text": "1"}, {"text": "2"}, {"text": "3"}, `+slowTurn+`]}`), "K")
	k.waitFor("session") // the lock is taken before the session event
	k.kill()
	r = h.run("", "run", "--json", "--resume", id, "-C", h.workdir, "-m", model, "after the kill")
	if r.code != 0 {
		t.Fatalf("resume after kill -9: exit %d: %s", r.code, r.stderr)
	}
	if d := h.show(id); !wellFormed(d.Messages) {
		t.Fatalf("history after kill and resume is not well formed: %+v", d.Messages)
	}
}

// Every mistake of a careless user exits 2 with a message naming the fix,
// and stores nothing.
func TestCarelessUserErrors(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [{"text": "ok"}]}`)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	corrupt := t.TempDir()
	if err := os.WriteFile(filepath.Join(corrupt, "harness9.db"), bytes.Repeat([]byte("not sqlite "), 500), 0o600); err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("lorem ipsum dolor sit amet ", 2000) // ~12k tokens
	for _, tc := range []struct {
		name  string
		stdin string
		home  string
		args  []string
		want  []string
	}{
		{"sessions typo", "", "", []string{"sessions", "lsit"}, []string{"lsit", "delete, list, refine, rewind, show", "did you mean list"}},
		{"bare sessions", "", "", []string{"sessions"}, []string{"needs a command", "list"}},
		{"mcp typo", "", "", []string{"mcp", "lst"}, []string{"lst", "list"}},
		{"skills typo", "", "", []string{"skills", "bogus"}, []string{"bogus", "list"}},
		{"max-turns 0", "", "", []string{"run", "--max-turns", "0", "-C", h.workdir, "-m", model, "hi"}, []string{"--max-turns", "at least 1"}},
		{"max-turns negative", "", "", []string{"run", "--max-turns=-2", "-C", h.workdir, "-m", model, "hi"}, []string{"--max-turns"}},
		{"empty stdin", "", "", []string{"run", "-C", h.workdir, "-m", model, "-"}, []string{"stdin", "empty"}},
		{"blank prompt", "", "", []string{"run", "-C", h.workdir, "-m", model, "   \n "}, []string{"empty"}},
		{"non-UTF-8 stdin", "caf\xe9 au lait", "", []string{"run", "-C", h.workdir, "-m", model, "-"}, []string{"UTF-8", "offset 3"}},
		{"prompt over the window", huge, "", []string{"run", "--context-window", "4000", "-C", h.workdir, "-m", model, "-"},
			[]string{"tokens", "4000", "context window"}},
		{"unwritable home", "", filepath.Join(notDir, "home"), []string{"sessions", "list"}, []string{"HARNESS9_HOME"}},
		{"corrupt database", "", corrupt, []string{"sessions", "list"}, []string{filepath.Join(corrupt, "harness9.db"), "move it aside"}},
		{"corrupt database on run", "", corrupt, []string{"run", "-C", h.workdir, "-m", model, "hi"}, []string{"move it aside"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hh := *h
			hh.t = t
			if tc.home != "" {
				hh.env = append(append([]string(nil), h.env...), "HARNESS9_HOME="+tc.home)
			}
			r := hh.run(tc.stdin, tc.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\nstderr: %s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not contain %q", r.stderr, w)
				}
			}
		})
	}
	// None of the refused runs stored a session.
	if r := h.run("", "sessions", "list", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("sessions after refused runs: %s", r.stdout)
	}
}

// A run that hits --max-turns says how to go on.
func TestMaxTurnsSaysHowToContinue(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [{"calls": [{"name": "list_files", "input": {}}]}, {"text": "done"}]}`)
	r := h.run("", "run", "--max-turns", "1", "-C", h.workdir, "-m", model, "look")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "--resume ") || !strings.Contains(r.stderr, "--max-turns") {
		t.Fatalf("stderr does not say how to continue: %q", r.stderr)
	}
}

func TestDoctor(t *testing.T) {
	h := newHarness(t)
	model := h.script(`{"turns": [{"text": "ok"}]}`)
	if r := h.run("", "run", "-C", h.workdir, "-m", model, "hi"); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	r := h.run("", "doctor", "--json", "--offline", "-C", h.workdir, "-m", model)
	var checks []struct{ Name, Status, Detail string }
	if err := json.Unmarshal([]byte(r.stdout), &checks); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, r.stdout)
	}
	byName := map[string]string{}
	for _, c := range checks {
		byName[c.Name] = c.Status + " " + c.Detail
	}
	if r.code != 0 {
		t.Fatalf("doctor with a working set-up: exit %d\n%v", r.code, byName)
	}
	for name, want := range map[string]string{"database": "integrity ok", "data dir": "ok", "provider": "ok",
		"sandbox": "", "mcp": "ok", "endpoint": "skip"} {
		got, ok := byName[name]
		if !ok || !strings.Contains(got, want) {
			t.Errorf("check %s = %q, want it to contain %q", name, got, want)
		}
	}

	// No key for the configured model: exit 1, and the key's name but no key.
	h.env = append(h.env, "OPENAI_API_KEY=")
	r = h.run("", "doctor", "--offline", "-C", h.workdir, "-m", "openai/gpt-test")
	if r.code != 1 || !strings.Contains(r.stdout, "OPENAI_API_KEY") {
		t.Fatalf("doctor without a key: exit %d\n%s", r.code, r.stdout)
	}
	h.env = append(h.env, "OPENAI_API_KEY=sk-secret-value")
	r = h.run("", "doctor", "--offline", "-C", h.workdir, "-m", "openai/gpt-test")
	if r.code != 0 || strings.Contains(r.stdout, "sk-secret-value") {
		t.Fatalf("doctor with a key: exit %d, and it must never print the key\n%s", r.code, r.stdout)
	}

	// A damaged database fails the check and says to move it aside.
	db := filepath.Join(h.home, "harness9.db")
	for _, f := range []string{db, db + "-wal", db + "-shm"} {
		_ = os.Remove(f)
	}
	if err := os.WriteFile(db, bytes.Repeat([]byte("junk"), 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	r = h.run("", "doctor", "--offline", "-C", h.workdir, "-m", model)
	if r.code != 1 || !strings.Contains(r.stdout, "move it aside") {
		t.Fatalf("doctor with a damaged database: exit %d\n%s", r.code, r.stdout)
	}
}

// doctor started in a repository whose go.mod asks for another toolchain
// reports this machine's Go and neither fetches nor runs that toolchain.
func TestDoctorGoCheckIgnoresTheRepositorysToolchain(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not in PATH")
	}
	h := newHarness(t)
	gomod := "module hostile\n\ngo 1.99\n\ntoolchain go1.99.0\n"
	if err := os.WriteFile(filepath.Join(h.workdir, "go.mod"), []byte(gomod), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(h.binary(), "doctor", "--json", "--offline", "-m", h.script(`{"turns": [{"text": "ok"}]}`))
	// The go command starts a detached telemetry child that writes into the
	// user's config directory after go itself (and doctor) returned; kept out
	// of the test's TempDir, whose removal it would race.
	cfg, err := os.MkdirTemp("", "h9-gotelemetry-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(cfg) })
	cmd.Dir, cmd.Env = h.workdir, append(h.env, "GOTOOLCHAIN=auto", "GOPROXY=off", "XDG_CONFIG_HOME="+cfg)
	out, _ := cmd.Output()
	var checks []struct{ Name, Status, Detail string }
	if err := json.Unmarshal(out, &checks); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	for _, c := range checks {
		if c.Name == "go" {
			if c.Status != "ok" || !strings.HasPrefix(c.Detail, runtime.Version()) {
				t.Fatalf("go check = %s %q, want ok and %s: the repository's toolchain line was obeyed", c.Status, c.Detail, runtime.Version())
			}
			return
		}
	}
	t.Fatalf("no go check in %s", out)
}
