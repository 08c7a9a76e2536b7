package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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

// syncBuffer is a bytes.Buffer safe to read while a run writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Ctrl+C while the terminal prompt waits for an answer interrupts the run
// at once (exit 130, the JSONL stream still ends with done), rather than
// leaving the process blocked on a read of stdin until a second Ctrl+C.
func TestInterruptWhileAskingOnATerminal(t *testing.T) {
	const plan = `{"calls": [{"name": "submit_plan", "input": {"title": "T", "content": "c", "steps": ["write a.txt"]}}]}`
	for _, tc := range []struct{ name, script, typed, prompt string }{
		{"plan dialog", `{"turns": [` + plan + `]}`, "", "Approve this plan?"},
		{"edit confirmation", `{"turns": [` + plan + `, {"calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "a"}}]}, {"text": "done"}]}`,
			"2\n", "write_file wants to run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			script := filepath.Join(t.TempDir(), "s.json")
			if err := os.WriteFile(script, []byte(tc.script), 0o600); err != nil {
				t.Fatal(err)
			}
			stdin, w := io.Pipe() // a terminal where the user types tc.typed, then nothing
			defer w.Close()
			go func() { _, _ = io.WriteString(w, tc.typed) }()
			var out, errb syncBuffer
			e := &env{stdin: stdin, stdout: &out, stderr: &errb,
				getenv:     func(k string) string { return map[string]string{"HARNESS9_HOME": home}[k] },
				isTerminal: func() bool { return true }}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			code := make(chan int, 1)
			go func() {
				code <- run(ctx, e, []string{"run", "--json", "--plan", "-C", dir, "-m", "scripted/" + script, "go"})
			}()
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(errb.String(), tc.prompt) {
				if time.Now().After(deadline) {
					t.Fatalf("the prompt %q never appeared (stderr %q)", tc.prompt, errb.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
			select {
			case c := <-code:
				if c != ExitInterrupted {
					t.Fatalf("exit %d, want %d\nstderr: %s", c, ExitInterrupted, errb.String())
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the run still waits for stdin 5s after the interrupt")
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if !strings.Contains(lines[len(lines)-1], `"cancelled"`) {
				t.Errorf("the JSONL stream does not end with done cancelled: %s", out.String())
			}
		})
	}
}
