package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
)

// smallDisk mounts a tmpfs of size bytes (a disk that fills up) for the
// test; it needs root, as CI runs. It returns the mount point.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0755", "tmpfs", dir).CombinedOutput()
	if err != nil {
		msg := "cannot mount a small tmpfs (run the tests as root): " + strings.TrimSpace(string(out))
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fillScript plans two steps; executing the first, a command fills the
// disk; the second writes after.txt.
const fillScript = `{"turns": [
  {"text": "Plan ready.", "calls": [{"name": "submit_plan", "input": {"title": "Fill", "content": "Fill the disk, then write.", "steps": ["fill the disk", "write after.txt"]}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "fill the disk", "status": "in_progress"}, {"id": "2", "content": "write after.txt", "status": "pending"}]}}]},
  {"text": "Filling the disk.", "calls": [{"name": "bash", "input": {"command": "cat /dev/zero > fill.bin 2>/dev/null; echo filled"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "fill the disk", "status": "completed"}, {"id": "2", "content": "write after.txt", "status": "in_progress"}]}}]},
  {"calls": [{"name": "write_file", "input": {"path": "after.txt", "content": "after"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "fill the disk", "status": "completed"}, {"id": "2", "content": "write after.txt", "status": "completed"}]}}]},
  {"text": "Both steps done."}
]}`

// The disk holding the SQLite store fills up (a command of the plan fills
// it) while serve executes: storing the command's result fails, the run
// ends with an error that names the database file and the fix, nothing is
// half stored, and serve goes on serving. Once space is freed, continuing
// the plan finishes it and the session is intact.
func TestDiskFullUnderSQLiteThenContinue(t *testing.T) {
	disk := smallDisk(t, "8m")
	h := newHarness(t)
	h.home = filepath.Join(disk, "home")
	root := filepath.Join(disk, "repos")
	for _, d := range []string{h.home, root} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i, kv := range h.env {
		if strings.HasPrefix(kv, "HARNESS9_HOME=") {
			h.env[i] = "HARNESS9_HOME=" + h.home
		}
	}
	token := serveSetup(t, h, root)
	model := h.script(fillScript)
	s := h.serve(model)
	ids, dirs, logs := planned(t, s, token, root, 1)
	id, dir, l := ids[0], dirs[0], logs[0]
	if code, body := s.post(token, "/api/sessions/"+id+"/review", `{"choice": "approve_auto"}`); code != 200 {
		t.Fatalf("approve: %d %v", code, body)
	}
	l.wait(t, "done", "error", 1, 2*time.Minute)
	var msg string
	for _, ev := range l.find("error") {
		msg, _ = ev["message"].(string)
	}
	db := filepath.Join(h.home, "harness9.db")
	if !strings.Contains(msg, "is full") || !strings.Contains(msg, db) || !strings.Contains(msg, "free some space") {
		t.Errorf("the error event %q does not name the full disk's database (%s) and the fix", msg, db)
	}
	// Nothing half stored: the history ends with the call whose result
	// could not be stored, and everything before it is there.
	before := h.stored(id)
	last := before.Messages[len(before.Messages)-1]
	if last.Role != llm.RoleAssistant || len(last.ToolCalls) != 1 || last.ToolCalls[0].Name != "bash" {
		t.Fatalf("the stored history ends with %+v; want the bash call", last)
	}
	checkTodosAndEvidence(t, before)
	if code, show := s.get(token, "/api/sessions/"+id); code != 200 || show["status"] != "executing" {
		t.Fatalf("serve after the failure: %d %v", code, show)
	}

	if err := os.Remove(filepath.Join(dir, "fill.bin")); err != nil {
		t.Fatal(err)
	}
	if code, body := s.post(token, "/api/sessions/"+id+"/continue", ""); code != 202 {
		t.Fatalf("continue: %d %v", code, body)
	}
	l.wait(t, "done", "completed", 1, 2*time.Minute)
	after := h.stored(id)
	if !wellFormed(after.Messages) {
		t.Error("after continuing, the history is not in the shape a provider accepts")
	}
	checkTodosAndEvidence(t, after)
	if b, err := os.ReadFile(filepath.Join(dir, "after.txt")); err != nil || string(b) != "after" {
		t.Errorf("after.txt: %q %v", b, err)
	}
	if len(after.Todos) != 2 || after.Todos[1].Status != "completed" {
		t.Errorf("todos %v", after.Todos)
	}
	if c := s.stop(); c != 0 {
		t.Fatalf("serve exited %d\n%s", c, s.logs)
	}
}
