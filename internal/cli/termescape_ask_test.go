package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The terminal question of run --approve ask shows the command the model
// sent as written: a carriage return and a line erase cannot draw a
// harmless command over it. The user's "n" keeps the file off the disk.
func TestAskQuestionShowsTheHiddenCommand(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	script := filepath.Join(t.TempDir(), "s.json")
	body := `{"turns": [{"calls": [{"name": "bash", "input": {"command": "touch pwned.txt #\r\u001b[2Kls -la \u001bPtmux;\u001b\u001b]52;c;eA==\u0007\u001b\\"}}]}, {"text": "done"}]}`
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	e := &env{
		stdin: strings.NewReader("n\nno\n"), stdout: &out, stderr: &errb,
		getenv:     func(k string) string { return map[string]string{"HARNESS9_HOME": home}[k] },
		isTerminal: func() bool { return true },
	}
	if code := run(context.Background(), e, []string{"run", "--sandbox", "off", "--approve", "ask", "-C", dir, "-m", "scripted/" + script, "go"}); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	q := errb.String()
	if !strings.Contains(q, "wants to run") || !strings.Contains(q, "touch pwned.txt") {
		t.Fatalf("question = %q", q)
	}
	for _, bad := range []string{"\r", "\x1b", "\a"} {
		if strings.Contains(q, bad) {
			t.Errorf("the question carries %q: %q", bad, q)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned.txt")); err == nil {
		t.Error("a denied command ran")
	}
}
