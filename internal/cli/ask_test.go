package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// askScript plans two writes; after approval each write is confirmed on the
// terminal (option 2: approve and confirm each edit).
const askScript = `{"turns": [
  {"calls": [{"name": "submit_plan", "input": {"title": "Two files", "content": "a and b", "steps": ["write a.txt", "write b.txt"]}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "in_progress"}, {"id": "2", "content": "write b.txt", "status": "pending"}]}}]},
  {"calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "a"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "in_progress"}]}}]},
  {"calls": [{"name": "write_file", "input": {"path": "b.txt", "content": "b"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "cancelled"}]}}], "match": {"last_tool_result_contains": "not to"}},
  {"text": "a.txt written; b.txt refused by the user."}
]}`

// TestApproveAskOnATerminal answers the plan dialog with 2 (confirm each
// edit), allows the first write and denies the second with a reason that
// reaches the model.
func TestApproveAskOnATerminal(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	script := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(script, []byte(askScript), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	e := &env{
		stdin:      strings.NewReader("2\ny\nn\nplease not to write b\n"),
		stdout:     &out,
		stderr:     &errb,
		getenv:     func(k string) string { return map[string]string{"HARNESS9_HOME": home}[k] },
		isTerminal: func() bool { return true },
	}
	code := run(context.Background(), e, []string{"run", "--plan", "-C", dir, "-m", "scripted/" + script, "write two files"})
	if code != ExitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, errb.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "a" {
		t.Fatalf("a.txt = %q, %v (allowed once)", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("b.txt was written although the user denied it")
	}
	for _, want := range []string{"Approve this plan?", "write_file wants to run", "Reason (sent to the model)"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}
