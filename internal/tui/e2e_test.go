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
)

// TestEndToEndTmux drives the real binary in a tmux terminal: Shift+Tab to
// Plan Mode, a task, Enter, "1" in the review dialog, and then checks the
// files the scripted model wrote and the task's TODO.md.
func TestEndToEndTmux(t *testing.T) {
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

	sock := fmt.Sprintf("h9e2e-%d", os.Getpid())
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
	screen := func() string { s, _ := tm("capture-pane", "-p", "-t", "h9"); return s }
	waitFor := func(what string, ok func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			if ok(screen()) {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("timed out waiting for %s; screen:\n%s", what, screen())
	}
	contains := func(s string) func(string) bool { return func(sc string) bool { return strings.Contains(sc, s) } }
	keys := func(k ...string) {
		t.Helper()
		if out, err := tm(append([]string{"send-keys", "-t", "h9"}, k...)...); err != nil {
			t.Fatalf("send-keys: %v %s", err, out)
		}
	}

	waitFor("the TUI", contains("DEFAULT"))
	keys("BTab")
	waitFor("Plan Mode", contains("PLAN MODE"))
	keys("-l", demo.Prompt)
	keys("Enter")
	waitFor("the review dialog", contains("Plan ready for review"))
	keys("1")

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
	waitFor("every task checked in TODO.md", func(string) bool { return todoDone() })
	for path, want := range demo.Files {
		got, err := os.ReadFile(filepath.Join(work, path))
		if err != nil || string(got) != want {
			t.Errorf("%s: err %v, content matches %v", path, err, string(got) == want)
		}
	}
	waitFor("the final summary", contains("All three steps are done"))
	keys("C-c")
	keys("C-c")
}
