package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// crashScript is a session that streams slowly, writes todos, runs a bash
// call that takes a while, reads until the context is compacted (the
// summariser streams slowly too) and ends. Its numbered turns follow the
// stored history, so a process resuming after a kill plays on from where
// the store says the session is.
func crashScript(t *testing.T) string {
	t.Helper()
	todos := func(first, second string) map[string]any {
		return map[string]any{"todos": []map[string]string{
			{"id": "1", "content": "run the first step", "status": first},
			{"id": "2", "content": "read the notes", "status": second},
		}}
	}
	turns := []turnJSON{
		{"text": "Planning the two steps now.", "chunk_size": 3, "delay_ms": 15,
			"calls": []any{call("todo_write", todos("in_progress", "pending"))}},
		{"calls": []any{call("bash", map[string]any{"command": "sleep 0.3; echo one > one.txt"})}},
		{"calls": []any{call("todo_write", todos("completed", "in_progress"))}},
	}
	for n := range 40 {
		turns = append(turns, turnJSON{"text": fmt.Sprintf("Reading the notes (%d).", n),
			"calls": []any{call("read_file", map[string]any{"path": "notes.txt"})}})
	}
	turns = append(turns,
		turnJSON{"text": summaryBody, "chunk_size": 4, "delay_ms": 20,
			"when": map[string]any{"system_contains": summariserSystem}},
		turnJSON{"text": "Compacted; everything is done.",
			"when": map[string]any{"first_user_contains": compact.SummaryHeader}})
	b, err := json.Marshal(map[string]any{"turns": turns})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// storedSession is what the checks read of `sessions show --json`.
type storedSession struct {
	Todos    []planning.TodoItem `json:"todos"`
	Evidence int                 `json:"evidence"`
	Messages []llm.Message       `json:"messages"`
}

func (h *harness) stored(id string) storedSession {
	h.t.Helper()
	r := h.run("", "sessions", "show", id, "--json")
	var s storedSession
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &s) != nil {
		h.t.Fatalf("sessions show: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	return s
}

// Kill -9 the real binary at many points of a scripted run (while a model
// answer streams, between a tool call and its result, around a todo_write,
// while the summariser streams), then resume: the session finishes, every
// message stored before the kill is still there, each tool call has exactly
// one result, and the todos and the evidence counter agree with the
// history.
func TestKillAnywhereThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary dozens of times")
	}
	// A reference run without a kill gives the number of events.
	ref := newHarness(t)
	writeCompactFiles(t, ref.workdir)
	model := ref.script(crashScript(t))
	win := fmt.Sprint(compactWindow)
	r := ref.run("", "run", "--json", "--context-window", win, "-C", ref.workdir, "-m", model, "do both steps")
	if r.code != 0 || len(r.find("compacted")) != 1 {
		t.Fatalf("reference run: exit %d, %d compactions\n%s", r.code, len(r.find("compacted")), r.stderr)
	}
	total := len(r.events)
	points := map[int]bool{}
	for k := 1; k <= 10; k++ {
		points[k] = true // streaming, the todo_writes, the bash call
	}
	for i, ev := range r.events {
		if ev["type"] == "compacted" {
			points[i-1], points[i] = true, true // while the summariser streams
		}
	}
	for k := 12; k < total; k += 7 {
		points[k] = true
	}
	points[total-1] = true // after the last answer, before done
	for _, k := range slices.Sorted(maps.Keys(points)) {
		if k < 1 || k >= total {
			continue
		}
		t.Run(fmt.Sprintf("kill after event %d of %d (%v)", k, total, r.events[k-1]["type"]), func(t *testing.T) {
			h := newHarness(t)
			writeCompactFiles(t, h.workdir)
			model := h.script(crashScript(t))
			p := h.start("run", "--json", "--context-window", win, "-C", h.workdir, "-m", model, "do both steps")
			id := p.waitFor("session")["session_id"].(string)
			for range k - 1 {
				if _, ok := p.next(); !ok {
					break
				}
			}
			p.kill()
			before := h.stored(id)
			checkTodosAndEvidence(t, before)

			r := h.run("", "run", "--json", "--resume", id, "--context-window", win, "-C", h.workdir, "-m", model, "carry on")
			if r.code != 0 || r.last()["status"] != "completed" {
				t.Fatalf("resume: exit %d, last %v\nstderr: %s", r.code, r.last(), r.stderr)
			}
			after := h.stored(id)
			if len(after.Messages) < len(before.Messages) || !reflect.DeepEqual(after.Messages[:len(before.Messages)], before.Messages) {
				t.Fatalf("messages stored before the kill changed or were lost: %d before, %d after", len(before.Messages), len(after.Messages))
			}
			answers := map[string]int{}
			for _, m := range after.Messages {
				if m.Role == llm.RoleTool {
					answers[m.ToolCallID]++
				}
			}
			for _, m := range after.Messages {
				for _, c := range m.ToolCalls {
					if answers[c.ID] != 1 {
						t.Errorf("call %s (%s) has %d results, want 1", c.ID, c.Name, answers[c.ID])
					}
				}
			}
			if !wellFormed(after.Messages) {
				t.Errorf("the stored history is not in the shape a provider accepts")
			}
			checkTodosAndEvidence(t, after)
		})
	}
}

// checkTodosAndEvidence: the stored todo list is the one the last
// successful todo_write (or submit_plan) set, or the one of a later todo_write whose result
// the kill prevented (its effect happened; resuming answers it
// "interrupted"); the evidence counter never exceeds the successful work
// stored since that todo_write.
func checkTodosAndEvidence(t *testing.T, s storedSession) {
	t.Helper()
	results := map[string]llm.Message{}
	for _, m := range s.Messages {
		if m.Role == llm.RoleTool {
			results[m.ToolCallID] = m
		}
	}
	var lastOK, pending []planning.TodoItem
	okAt := -1
	for i, m := range s.Messages {
		for _, c := range m.ToolCalls {
			if c.Name != planning.TodoWriteName && c.Name != planning.SubmitPlanName {
				continue
			}
			var in struct {
				Todos []planning.TodoItem `json:"todos"`
				Steps []string            `json:"steps"`
			}
			if err := json.Unmarshal(c.Input, &in); err != nil {
				t.Fatal(err)
			}
			for n, step := range in.Steps { // submit_plan: the steps, pending
				in.Todos = append(in.Todos, planning.TodoItem{ID: fmt.Sprint(n + 1), Content: step, Status: planning.TodoPending})
			}
			res, answered := results[c.ID]
			switch {
			case !answered:
				pending = in.Todos
			case !res.IsError:
				lastOK, pending = in.Todos, nil
				if c.Name == planning.TodoWriteName { // the evidence counter restarts here
					okAt = i
				}
			}
		}
	}
	same := func(a, b []planning.TodoItem) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i].ID != b[i].ID || a[i].Status != b[i].Status || a[i].Content != b[i].Content {
				return false
			}
		}
		return true
	}
	if !same(s.Todos, lastOK) && (pending == nil || !same(s.Todos, pending)) {
		t.Errorf("stored todos %v, want the last successful todo_write's %v (or an unanswered one's %v)", s.Todos, lastOK, pending)
	}
	work := 0
	for _, m := range s.Messages[okAt+1:] {
		if m.Role == llm.RoleTool && !m.IsError && m.Name != planning.TodoWriteName && m.Name != planning.SubmitPlanName {
			work++
		}
	}
	if s.Evidence > work {
		t.Errorf("evidence %d, but only %d successful tool results are stored since the last todo_write", s.Evidence, work)
	}
}
