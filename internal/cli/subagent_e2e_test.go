package cli_test

// End-to-end tests of sub-agents (the task tool) through the real binary.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planDelegateScript: a Plan-Mode parent delegates two explore tasks in
// one turn. Each child first tries to write (refused: it is read-only),
// reads a file, then answers; the children are routed by their prompt,
// since both start with an empty history.
const planDelegateScript = `{"turns": [
  {"when": {"first_user_contains": "TASK-A", "last_tool_result_contains": "alpha"}, "text": "A says alpha", "usage": {"input_tokens": 50, "output_tokens": 5}},
  {"when": {"first_user_contains": "TASK-A"}, "calls": [
    {"name": "write_file", "input": {"path": "pwned-a.txt", "content": "x"}},
    {"name": "read_file", "input": {"path": "a.txt"}}]},
  {"when": {"first_user_contains": "TASK-B", "last_tool_result_contains": "beta"}, "text": "B says beta", "usage": {"input_tokens": 60, "output_tokens": 6}},
  {"when": {"first_user_contains": "TASK-B"}, "calls": [
    {"name": "write_file", "input": {"path": "pwned-b.txt", "content": "x"}},
    {"name": "read_file", "input": {"path": "b.txt"}}]},
  {"calls": [
    {"id": "task_a", "name": "task", "input": {"description": "read a", "prompt": "TASK-A: read a.txt and report its word"}},
    {"id": "task_b", "name": "task", "input": {"description": "read b", "prompt": "TASK-B: read b.txt and report its word", "agent": "explore"}}],
   "match": {"has_tool": "task"}},
  {"text": "alpha and beta.", "match": {"last_tool_result_contains": "B says beta"}}
]}`

func TestPlanModeDelegatesTwoExploreTasks(t *testing.T) {
	h := newHarness(t)
	for name, word := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"} {
		if err := os.WriteFile(filepath.Join(h.workdir, name), []byte(word), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := h.script(planDelegateScript)
	r := h.run("", "run", "--json", "--plan", "-C", h.workdir, "-m", model, "find the two words")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	for _, f := range []string{"pwned-a.txt", "pwned-b.txt"} {
		if _, err := os.Stat(filepath.Join(h.workdir, f)); err == nil {
			t.Errorf("a Plan-Mode sub-agent wrote %s", f)
		}
	}
	parentID, _ := r.events[0]["session_id"].(string)
	if r.events[0]["type"] != "session" || parentID == "" || r.events[0]["parent"] != nil {
		t.Fatalf("first event = %v", r.events[0])
	}
	if r.last()["type"] != "done" || r.last()["status"] != "completed" || r.last()["parent"] != nil {
		t.Fatalf("last event = %v", r.last())
	}
	// Top-level events have no parent; the children's all name their call.
	var nested, refusedWrites int
	childSessions := map[string]string{}
	for _, ev := range r.events {
		p, ok := ev["parent"].(string)
		if !ok {
			continue
		}
		nested++
		if p != "task_a" && p != "task_b" {
			t.Errorf("nested event with parent %q: %v", p, ev)
		}
		if ev["type"] == "session" {
			childSessions[p], _ = ev["session_id"].(string)
		}
		if ev["type"] == "tool_result" && ev["name"] == "write_file" && ev["is_error"] == true {
			refusedWrites++
		}
	}
	if len(childSessions) != 2 || refusedWrites != 2 || nested < 12 {
		t.Fatalf("children %v, refused writes %d, nested events %d\n%s", childSessions, refusedWrites, nested, r.stdout)
	}
	var results []map[string]any
	for _, ev := range r.find("tool_result") {
		if ev["parent"] == nil {
			results = append(results, ev)
		}
	}
	if len(results) != 2 || results[0]["id"] != "task_a" || results[1]["id"] != "task_b" {
		t.Fatalf("top-level results = %v", results)
	}
	if out, _ := results[0]["output"].(string); !strings.Contains(out, "A says alpha") || !strings.Contains(out, "a.txt") {
		t.Errorf("task_a result = %q", out)
	}

	// sessions list shows the parent only; --sub-agents marks the children.
	ls := h.run("", "sessions", "list", "--json", "-C", h.workdir)
	var listed []map[string]any
	if err := json.Unmarshal([]byte(ls.stdout), &listed); err != nil || len(listed) != 1 || listed[0]["id"] != parentID {
		t.Fatalf("sessions list = %s (%v)", ls.stdout, err)
	}
	all := h.run("", "sessions", "list", "--sub-agents", "-C", h.workdir)
	if strings.Count(all.stdout, "sub-agent of "+parentID[:8]) != 2 {
		t.Errorf("sessions list --sub-agents:\n%s", all.stdout)
	}
	show := h.run("", "sessions", "show", "--json", parentID)
	var detail struct {
		Subagents []struct {
			ID       string `json:"id"`
			ParentID string `json:"parent_id"`
			Title    string `json:"title"`
		} `json:"subagents"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &detail); err != nil || len(detail.Subagents) != 2 {
		t.Fatalf("sessions show = %s (%v)", show.stdout, err)
	}
	for _, k := range detail.Subagents {
		if k.ParentID != parentID || (k.ID != childSessions["task_a"] && k.ID != childSessions["task_b"]) {
			t.Errorf("sub-agent %+v", k)
		}
	}
	child := h.run("", "sessions", "show", childSessions["task_a"])
	if !strings.Contains(child.stdout, "parent   "+parentID) || !strings.Contains(child.stdout, "A says alpha") {
		t.Errorf("child transcript:\n%s", child.stdout)
	}
	// --continue picks the parent, not a newer child session.
	cont := h.run("", "run", "--json", "--continue", "-C", h.workdir, "-m", h.script(`{"turns": [{"text": "x"}, {"text": "x"}, {"text": "x"}]}`), "again")
	if len(cont.events) == 0 || cont.events[0]["session_id"] != parentID {
		t.Errorf("--continue resumed %v, want the parent %s\n%s", cont.events, parentID, cont.stderr)
	}
}

// Without --json a run prints the sub-agents' tool calls indented under
// their task calls on stderr; their answers reach stdout only through the
// parent's.
func TestPlainRunShowsSubagentCalls(t *testing.T) {
	h := newHarness(t)
	for name, word := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"} {
		if err := os.WriteFile(filepath.Join(h.workdir, name), []byte(word), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := h.run("", "run", "--plan", "-C", h.workdir, "-m", h.script(planDelegateScript), "find the two words")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	for _, want := range []string{"→ task read a", "  ↳ read_file a.txt", "  ↳ read_file b.txt", "  ↳ write_file pwned-a.txt"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stdout, "A says alpha") || !strings.Contains(r.stdout, "alpha and beta.") {
		t.Errorf("stdout = %q, want the parent's answer only", r.stdout)
	}
}
