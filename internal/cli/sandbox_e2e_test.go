package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/sandbox"
)

func bashTurns(cmds ...string) string {
	var turns []string
	for _, c := range cmds {
		b, _ := json.Marshal(map[string]any{"name": "bash", "input": map[string]any{"command": c}})
		turns = append(turns, fmt.Sprintf(`{"calls": [%s]}`, b))
	}
	turns = append(turns, `{"text": "done"}`)
	return `{"turns": [` + strings.Join(turns, ",") + `]}`
}

// Through the binary: Plan Mode's bash writes nothing, Default mode's bash
// writes the workdir but nothing outside it, and neither reads a key in
// the home directory.
func TestBinaryBashIsConfined(t *testing.T) {
	if sup := sandbox.Probe(); !sup.Available {
		t.Skipf("no kernel sandbox: %s", sup.Reason)
	}
	h := newHarness(t)
	home := strings.TrimPrefix(h.env[0], "HOME=")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("KEY-BYTES-s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(h.workdir, "out"))
	os.Symlink(home, filepath.Join(h.workdir, "home"))

	plan := h.script(bashTurns(
		"echo x > planted.txt", "sed ':a e touch sedpwn' /dev/null", "echo x > out/planted",
		"cat home/.ssh/id_ed25519 ~/.ssh/id_ed25519", "setsid sleep 7391 &",
	))
	r := h.run("", "run", "--plan", "--approve", "never", "--json", "-C", h.workdir, "-m", plan, "explore")
	if r.code != 0 {
		t.Fatalf("plan run: exit %d\n%s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(h.workdir)
	for _, e := range entries {
		if e.Name() != "out" && e.Name() != "home" {
			t.Errorf("Plan Mode left %s in the workdir", e.Name())
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("Plan Mode wrote outside the workdir: %v", entries)
	}
	if strings.Contains(r.stdout, "s3cret") {
		t.Error("Plan Mode's bash read a key in the home directory")
	}

	def := h.script(bashTurns("echo x > made.txt", "echo x > out/planted", "cat home/.ssh/id_ed25519"))
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", def, "work")
	if r.code != 0 {
		t.Fatalf("default run: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.workdir, "made.txt")); err != nil {
		t.Errorf("Default mode's bash could not write the workdir:\n%s", r.stdout)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("Default mode wrote outside the workdir: %v", entries)
	}
	if strings.Contains(r.stdout, "s3cret") {
		t.Error("Default mode's bash read a key in the home directory")
	}
	if out, _ := os.ReadFile("/proc/self/cmdline"); len(out) == 0 {
		return
	}
	entries, _ = os.ReadDir("/proc")
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), "7391") {
			t.Errorf("a process started by Plan Mode's bash outlived the run: pid %s", e.Name())
		}
	}
}
