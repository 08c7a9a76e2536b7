package cli_test

// End-to-end tests of DESIGN §2 through the real binary: stagnation, its
// exit code and events, continuing a stalled plan, and where plan files land.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// stallScript plans two steps; every execution round then only flips items
// to in_progress (the pending count falls, nothing is completed). The turns
// after the third round finish the work, played by a later
// `run --resume ID --approve auto` that continues the stalled plan.
const stallScript = `{"turns": [
  {"text": "Plan ready.", "calls": [{"name": "submit_plan", "input": {"title": "Two files", "content": "Write a and b.", "steps": ["write a.txt", "write b.txt"]}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "in_progress"}, {"id": "2", "content": "write b.txt", "status": "pending"}]}}], "match": {"has_tool": "write_file"}},
  {"text": "Working on it."},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "in_progress"}, {"id": "2", "content": "write b.txt", "status": "in_progress"}]}}]},
  {"text": "Still working."},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "in_progress"}, {"id": "2", "content": "write b.txt", "status": "in_progress"}]}}]},
  {"text": "Almost there."},
  {"calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "a"}}], "match": {"last_user_contains": "Continue"}},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "in_progress"}]}}]},
  {"calls": [{"name": "write_file", "input": {"path": "b.txt", "content": "b"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}, {"id": "2", "content": "write b.txt", "status": "completed"}]}}]},
  {"text": "Both files written."}
]}`

func TestStalledHeadlessRunExits3(t *testing.T) {
	h := newHarness(t) // the workdir is not a git repository
	model := h.script(stallScript)
	r := h.run("", "run", "--json", "--plan", "--approve", "auto", "-C", h.workdir, "-m", model, "write two files")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (stalled)\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	if r.last()["type"] != "done" || r.last()["status"] != "stalled" {
		t.Fatalf("last event = %v", r.last())
	}
	stalled := r.find("stalled")
	if len(stalled) != 1 || stalled[0]["rounds"] != float64(3) {
		t.Fatalf("stalled events = %v, want one with rounds 3", stalled)
	}
	rounds := r.find("exec_round")
	if len(rounds) != 3 {
		t.Fatalf("exec_round events = %v, want exactly 3", rounds)
	}
	for i, e := range rounds {
		if e["round"] != float64(i+1) || e["done"] != float64(0) || e["total"] != float64(2) {
			t.Errorf("exec_round %d = %v", i+1, e)
		}
	}
	approved := r.find("approved")
	if len(approved) != 1 {
		t.Fatalf("approved events = %v", approved)
	}
	taskDir, _ := approved[0]["task_dir"].(string)
	if filepath.Dir(taskDir) != filepath.Join(h.home, "tasks") {
		t.Errorf("task dir %q is not under $HARNESS9_HOME/tasks (non-git workdir)", taskDir)
	}
	if _, err := os.Stat(filepath.Join(h.workdir, ".harness9")); err == nil {
		t.Error("a non-git workdir got a .harness9 directory")
	}
	todo, err := os.ReadFile(filepath.Join(taskDir, "TODO.md"))
	if err != nil || strings.Count(string(todo), "- [>]") != 2 {
		t.Errorf("TODO.md after the stall: %q, %v", todo, err)
	}
	order := strings.Join(filterTypes(filterTypes(r.types(), "usage"), "text"), ",")
	if !strings.Contains(order, "plan,approved,exec_round") || !strings.HasSuffix(order, "stalled,done") {
		t.Errorf("event order = %s", order)
	}

	// A later process continues the stalled plan, now making progress.
	id := r.find("session")[0]["session_id"].(string)
	r = h.run("", "run", "--json", "--resume", id, "--approve", "auto", "-C", h.workdir, "-m", model)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("continue: exit %d, last %v\nstderr: %s\nstdout: %s", r.code, r.last(), r.stderr, r.stdout)
	}
	todo, _ = os.ReadFile(filepath.Join(taskDir, "TODO.md"))
	if strings.Count(string(todo), "- [x]") != 2 {
		t.Errorf("TODO.md after continuing:\n%s", todo)
	}
}

// planAndDoScript plans one step and executes it in the same process.
const planAndDoScript = `{"turns": [
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "pending"}]}}]},
  {"calls": [{"name": "submit_plan", "input": {"title": "One file", "content": "Write a.", "steps": ["write a.txt"]}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "in_progress"}]}}]},
  {"calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "a"}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "write a.txt", "status": "completed"}]}}]},
  {"text": "Done."}
]}`

var planFileRE = regexp.MustCompile(`^[0-9]+-[0-9a-f]{8}\.md$`)

func TestPlanFilesLandInTheGitWorkdir(t *testing.T) {
	h := newHarness(t)
	if err := os.Mkdir(filepath.Join(h.workdir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	model := h.script(planAndDoScript)
	r := h.run("", "run", "--json", "--plan", "--approve", "auto", "-C", h.workdir, "-m", model, "write a file")
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("exit %d, last %v\nstderr: %s", r.code, r.last(), r.stderr)
	}
	base := filepath.Join(h.workdir, ".harness9")
	approved := r.find("approved")
	if len(approved) != 1 || filepath.Dir(approved[0]["task_dir"].(string)) != filepath.Join(base, "tasks") {
		t.Fatalf("approved = %v, want a task dir under %s/tasks", approved, base)
	}
	plans, err := os.ReadDir(filepath.Join(base, "plans"))
	if err != nil || len(plans) != 1 || !planFileRE.MatchString(plans[0].Name()) {
		t.Fatalf("plans dir = %v, %v; want one <unix>-<id8>.md", plans, err)
	}
	id := r.find("session")[0]["session_id"].(string)
	if !strings.HasSuffix(plans[0].Name(), "-"+id[:8]+".md") {
		t.Errorf("plan file %s does not name session %s", plans[0].Name(), id)
	}
	b, _ := os.ReadFile(filepath.Join(base, "plans", plans[0].Name()))
	if !strings.Contains(string(b), "- [x] write a.txt") {
		t.Errorf("plan file not rewritten by the last todo_write:\n%s", b)
	}
	for _, sub := range []string{"plans", "tasks"} {
		if _, err := os.Stat(filepath.Join(h.home, sub)); err == nil {
			t.Errorf("$HARNESS9_HOME/%s exists for a git workdir", sub)
		}
	}
}

// TestConfigPlanningSwitches: config.toml's [planning] evidence_gate and
// stall_threshold reach the engine.
func TestConfigPlanningSwitches(t *testing.T) {
	claim := `{"turns": [
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "x", "status": "in_progress"}]}}]},
  {"calls": [{"name": "todo_write", "input": {"todos": [{"id": "1", "content": "x", "status": "completed"}]}}]},
  {"text": "ok"}
]}`
	for _, tc := range []struct {
		config  string
		refused bool
	}{
		{"", true},
		{"[planning]\nevidence_gate = true\n", true},
		{"[planning]\nevidence_gate = false\n", false},
	} {
		h := newHarness(t)
		if tc.config != "" {
			if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		r := h.run("", "run", "--json", "-C", h.workdir, "-m", h.script(claim), "claim")
		res := r.find("tool_result")
		if r.code != 0 || len(res) != 2 || res[0]["is_error"] != false {
			t.Fatalf("config %q: exit %d, results %v\n%s", tc.config, r.code, res, r.stderr)
		}
		if res[1]["is_error"] != tc.refused {
			t.Errorf("config %q: completion without work refused = %v, want %v", tc.config, res[1]["is_error"], tc.refused)
		}
	}

	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte("[planning]\nstall_threshold = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.run("", "run", "--json", "--plan", "--approve", "auto", "-C", h.workdir, "-m", h.script(stallScript), "write two files")
	if st := r.find("stalled"); r.code != 3 || len(st) != 1 || st[0]["rounds"] != float64(2) || len(r.find("exec_round")) != 2 {
		t.Fatalf("stall_threshold = 2: exit %d, stalled %v, %d rounds\n%s", r.code, st, len(r.find("exec_round")), r.stderr)
	}
}
