package tui_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/internal/demo"
	"github.com/harness9/harness9/internal/tui"
)

// e2e is one run of the real binary in a tmux terminal on a fresh workdir
// with the demo's script as the model.
type e2e struct {
	t          *testing.T
	home, work string
	tm         func(args ...string) (string, error)
}

func startE2E(t *testing.T) *e2e {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	tmp := t.TempDir()
	// HARNESS9_E2E_BIN tests an already built binary instead.
	bin := os.Getenv("HARNESS9_E2E_BIN")
	if bin == "" {
		bin = filepath.Join(tmp, "harness9")
		build := exec.Command("go", "build", "-o", bin, "./cmd/harness9")
		build.Dir = filepath.Join("..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			t.Skipf("cmd/harness9 does not build yet:\n%s", out)
		}
	}
	home := filepath.Join(tmp, "home")
	work := filepath.Join(tmp, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if git, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(git, "init", "-q", work).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "NOTES.md"), []byte("# Greeter\nSay hello.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := demo.ScriptJSON()
	if err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(tmp, "script.json")
	if err := os.WriteFile(scriptPath, script, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := fmt.Sprintf("h9e2e-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	tm := func(args ...string) (string, error) {
		out, err := exec.Command(tmux, append([]string{"-L", sock}, args...)...).CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { _, _ = tm("kill-server") })
	cmdline := fmt.Sprintf("env HARNESS9_HOME=%q TERM=xterm-256color %q -C %q -m %q; sleep 30",
		home, bin, work, "scripted/"+scriptPath)
	if out, err := tm("new-session", "-d", "-s", "h9", "-x", "120", "-y", "40", cmdline); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	return &e2e{t: t, home: home, work: work, tm: tm}
}

func (e *e2e) screen() string { s, _ := e.tm("capture-pane", "-p", "-t", "h9"); return s }

func (e *e2e) waitFor(what string, ok func(string) bool) {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if ok(e.screen()) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	e.t.Fatalf("timed out waiting for %s; screen:\n%s", what, e.screen())
}

func (e *e2e) keys(k ...string) {
	e.t.Helper()
	if out, err := e.tm(append([]string{"send-keys", "-t", "h9"}, k...)...); err != nil {
		e.t.Fatalf("send-keys: %v %s", err, out)
	}
}

func contains(s string) func(string) bool {
	return func(sc string) bool { return strings.Contains(sc, s) }
}

// planToReview types the demo task in Plan Mode and waits for the review.
func (e *e2e) planToReview() {
	e.t.Helper()
	e.waitFor("the TUI", contains("DEFAULT"))
	e.keys("BTab")
	e.waitFor("Plan Mode", contains("PLAN MODE"))
	e.keys("-l", demo.Prompt)
	e.keys("Enter")
	e.waitFor("the review dialog", contains("Plan ready for review"))
	// The dialog takes no key for a moment after it opens (keys typed
	// ahead go to the editor).
	time.Sleep(2 * tui.DefaultDialogDelay)
}

// TestEndToEndTmux drives the real binary in a tmux terminal: Shift+Tab to
// Plan Mode, a task, Enter, "1" Enter in the review dialog, and then checks
// the files the scripted model wrote and the task's TODO.md.
func TestEndToEndTmux(t *testing.T) {
	e := startE2E(t)
	e.planToReview()
	e.keys("1")
	e.keys("Enter")
	work, home := e.work, e.home

	todoDone := func() bool {
		matches, _ := filepath.Glob(filepath.Join(work, ".harness9", "tasks", "*", "TODO.md"))
		more, _ := filepath.Glob(filepath.Join(home, "tasks", "*", "TODO.md"))
		for _, m := range append(matches, more...) {
			data, err := os.ReadFile(m)
			if err != nil {
				continue
			}
			s := string(data)
			if strings.Count(s, "- [x]") == len(demo.Steps) && !strings.Contains(s, "- [ ]") && !strings.Contains(s, "- [>]") {
				return true
			}
		}
		return false
	}
	e.waitFor("every task checked in TODO.md", func(string) bool { return todoDone() })
	for path, want := range demo.Files {
		got, err := os.ReadFile(filepath.Join(work, path))
		if err != nil || string(got) != want {
			t.Errorf("%s: err %v, content matches %v", path, err, string(got) == want)
		}
	}
	e.waitFor("the final summary", contains("All three steps are done"))
	e.keys("C-c")
	e.keys("C-c")
	e.waitFor("the resume hint on exit", contains("resume it with: harness9"))
}

// TestEndToEndTypingIntoReview types a sentence (with Enter-free letters,
// digits and spaces) into the open review dialog of the real binary: no
// file is written, nothing is approved, and the plan still awaits approval.
// Esc then closes the dialog and /review brings it back.
func TestEndToEndTypingIntoReview(t *testing.T) {
	e := startE2E(t)
	e.planToReview()
	e.keys("-l", "jk also add 2 tests and keep it simple")
	e.waitFor("the note in the dialog", contains("also add 2 tests and keep it simple"))
	e.keys("Escape")
	// Keys are handled in order: once Esc's hint shows, every typed key
	// before it has been handled too.
	e.waitFor("the closed dialog's hint", contains("/review reopens it"))
	if s := e.screen(); strings.Contains(s, "Plan approved") || strings.Contains(s, "Plan cancelled") {
		t.Fatalf("typing acted on the plan:\n%s", s)
	}
	for path := range demo.Files {
		if _, err := os.Stat(filepath.Join(e.work, path)); err == nil {
			t.Errorf("%s was written", path)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(e.work, ".harness9", "tasks", "*")); len(m) > 0 {
		t.Errorf("a task directory was created: %v", m)
	}
	e.keys("C-u") // the note moved to the editor; clear it
	e.keys("-l", "/review")
	e.keys("Enter")
	e.waitFor("the reopened dialog", contains("Plan ready for review"))
	if _, err := os.Stat(filepath.Join(e.work, "main.go")); err == nil {
		t.Error("main.go was written")
	}
}
