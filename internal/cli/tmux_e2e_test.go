package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// term is the real binary in a tmux terminal, driven as a person would:
// keys, pastes, and what the terminal shows (its screen and its own
// scrollback).
type term struct {
	t    *testing.T
	h    *harness
	tmux string
	sock string
	n    int // sessions started, for their names
	name string
}

// needTmux returns tmux, skipping the test where it is missing (it fails
// in CI, which installs it: .ci/run).
func needTmux(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed; CI installs it (apt-get install -y tmux)")
		}
		t.Skip("tmux is not installed (apt-get install -y tmux)")
	}
	return tmux
}

var sockName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// newTerm prepares a tmux server for h; start runs the binary in it.
func (h *harness) newTerm() *term {
	h.t.Helper()
	r := &term{t: h.t, h: h, tmux: needTmux(h.t)}
	r.sock = fmt.Sprintf("h9-%d-%s", os.Getpid(), sockName.ReplaceAllString(h.t.Name(), "-"))
	if len(r.sock) > 80 {
		r.sock = r.sock[:80]
	}
	h.t.Cleanup(r.stop)
	return r
}

// stop quits the program the way a person does (Ctrl+C until it is gone,
// so it has stopped writing to the test's directories), then the terminal.
func (r *term) stop() {
	if r.name != "" {
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) && !strings.Contains(r.screen(), "EXITED ") {
			_, _ = r.tm("send-keys", "-t", r.name, "C-c")
			time.Sleep(300 * time.Millisecond)
		}
	}
	_, _ = r.tm("kill-server")
}

func (r *term) tm(args ...string) (string, error) {
	out, err := exec.Command(r.tmux, append([]string{"-L", r.sock}, args...)...).CombinedOutput()
	return string(out), err
}

// start runs harness9 with args in a new w×hgt terminal, in the harness's
// environment (and extra variables); when it exits the terminal says
// "EXITED <code>" and stays open for the test to read.
func (r *term) start(w, hgt int, extra []string, args ...string) {
	r.t.Helper()
	r.n++
	r.name = fmt.Sprintf("s%d", r.n)
	var cmd strings.Builder
	cmd.WriteString("env -i")
	for _, kv := range append(append(append([]string(nil), r.h.env...), "TERM=xterm-256color"), extra...) {
		cmd.WriteString(" " + shellQuote(kv))
	}
	cmd.WriteString(" " + shellQuote(r.h.binary()))
	for _, a := range args {
		cmd.WriteString(" " + shellQuote(a))
	}
	cmd.WriteString("; echo EXITED $?; sleep 600")
	if out, err := r.tm("new-session", "-d", "-s", r.name, "-x", fmt.Sprint(w), "-y", fmt.Sprint(hgt), cmd.String()); err != nil {
		r.t.Fatalf("tmux new-session: %v %s", err, out)
	}
}

// openTUI starts the TUI on h's workdir with args and waits for it.
func (h *harness) openTUI(w, hgt int, args ...string) *term {
	h.t.Helper()
	r := h.newTerm()
	r.start(w, hgt, nil, append([]string{"-C", h.workdir}, args...)...)
	r.waitText("DEFAULT")
	return r
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// screen is what the terminal shows now.
func (r *term) screen() string { s, _ := r.tm("capture-pane", "-p", "-t", r.name); return s }

// all is the terminal's scrollback and screen.
func (r *term) all() string { s, _ := r.tm("capture-pane", "-p", "-S", "-", "-t", r.name); return s }

// waitFor waits until ok accepts the screen and returns it.
func (r *term) waitFor(what string, ok func(string) bool) string {
	r.t.Helper()
	return r.poll(what, r.screen, ok)
}

// waitAll waits until the terminal's scrollback or screen shows s.
func (r *term) waitAll(s string) string {
	r.t.Helper()
	return r.poll(fmt.Sprintf("%q", s), r.all, func(all string) bool { return strings.Contains(all, s) })
}

// poll looks at get until ok accepts it, for a minute at the most.
func (r *term) poll(what string, get func() string, ok func(string) bool) string {
	r.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if s := get(); ok(s) {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.t.Fatalf("timed out waiting for %s; terminal:\n%s", what, get())
	return ""
}

// waitText waits until the screen shows s.
func (r *term) waitText(s string) string {
	r.t.Helper()
	return r.waitFor(fmt.Sprintf("%q", s), func(sc string) bool { return strings.Contains(sc, s) })
}

// waitFast waits for s without pausing between looks, so that a key sent
// right after it arrives as soon after the screen changed as a fast typist's.
func (r *term) waitFast(s string) {
	r.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(r.screen(), s) {
			return
		}
	}
	r.t.Fatalf("timed out waiting for %q; screen:\n%s", s, r.screen())
}

// keys sends tmux key names ("Enter", "C-c", "BTab") or, with "-l", text.
func (r *term) keys(k ...string) {
	r.t.Helper()
	if out, err := r.tm(append([]string{"send-keys", "-t", r.name}, k...)...); err != nil {
		r.t.Fatalf("send-keys %v: %v %s", k, err, out)
	}
}

// text types s.
func (r *term) text(s string) { r.t.Helper(); r.keys("-l", s) }

// send types s and presses Enter.
func (r *term) send(s string) {
	r.t.Helper()
	r.text(s)
	r.keys("Enter")
}

// paste pastes s as a terminal does: bracketed, its line breaks sent as
// carriage returns (tmux's paste-buffer turns LF into CR, as most
// terminals' pastes carry them).
func (r *term) paste(s string) {
	r.t.Helper()
	f := filepath.Join(r.t.TempDir(), "paste.txt")
	if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
		r.t.Fatal(err)
	}
	if out, err := r.tm("load-buffer", "-b", "p", f); err != nil {
		r.t.Fatalf("load-buffer: %v %s", err, out)
	}
	if out, err := r.tm("paste-buffer", "-p", "-b", "p", "-t", r.name); err != nil {
		r.t.Fatalf("paste-buffer: %v %s", err, out)
	}
}

// exited waits for the program to end and returns its exit code.
func (r *term) exited() int {
	r.t.Helper()
	s := r.waitFor("the program to exit", func(s string) bool { return strings.Contains(s, "EXITED ") })
	var code int
	fmt.Sscanf(s[strings.Index(s, "EXITED ")+len("EXITED "):], "%d", &code)
	return code
}

// stays checks, for a moment, that the screen keeps showing want and never
// shows bad (a key typed ahead must have no late effect either).
func (r *term) stays(d time.Duration, want, bad string) {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := r.screen()
		if !strings.Contains(s, want) || (bad != "" && strings.Contains(s, bad)) {
			r.t.Fatalf("the screen should show %q and not %q:\n%s", want, bad, s)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
