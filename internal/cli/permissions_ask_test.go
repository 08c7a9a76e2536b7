package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "Always for this project" on the terminal keeps the rule in the data
// directory: the next run in that project, even without a terminal, runs
// the command unasked; a run in another project is still refused.
func TestAlwaysAllowPersistsPerProject(t *testing.T) {
	home := t.TempDir()
	script := filepath.Join(t.TempDir(), "s.json")
	body := `{"turns": [{"calls": [{"name": "bash", "input": {"command": "touch made.txt"}}]}, {"text": "done"}]}`
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	runIn := func(dir, stdin string, terminal bool) string {
		t.Helper()
		var out, errb bytes.Buffer
		e := &env{
			stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb,
			getenv:     func(k string) string { return map[string]string{"HARNESS9_HOME": home}[k] },
			isTerminal: func() bool { return terminal },
		}
		code := run(context.Background(), e, []string{"run", "--sandbox", "off", "-C", dir, "-m", "scripted/" + script, "make a file"})
		if code != ExitOK {
			t.Fatalf("exit %d\nstderr:\n%s", code, errb.String())
		}
		return errb.String()
	}
	made := func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, "made.txt"))
		return err == nil
	}

	a, b := t.TempDir(), t.TempDir()
	stderr := runIn(a, "a\n", true)
	if !made(a) || !strings.Contains(stderr, "[a] always for this project (bash(touch:*))") {
		t.Fatalf("first run: made=%v\n%s", made(a), stderr)
	}
	if err := os.Remove(filepath.Join(a, "made.txt")); err != nil {
		t.Fatal(err)
	}
	if stderr := runIn(a, "", false); !made(a) || strings.Contains(stderr, "wants to run") {
		t.Fatalf("second run in the same project: made=%v\n%s", made(a), stderr)
	}
	runIn(b, "", false)
	if made(b) {
		t.Fatal("the always-allow answer of one project allowed a command in another")
	}
}
