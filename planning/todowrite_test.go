package planning

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/harness9/harness9/tool"
)

// call runs a tool with a Go value as input.
func call(t *testing.T, tl tool.Tool, input any) tool.Result {
	t.Helper()
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Execute(context.Background(), b)
	if err != nil {
		t.Fatalf("%s returned a Go error: %v", tl.Name(), err)
	}
	return res
}

func todos(items ...TodoItem) map[string]any { return map[string]any{"todos": items} }

func item(id string, st TodoStatus) TodoItem {
	return TodoItem{ID: id, Content: "step " + id, Status: st}
}

func pendingStore(n int) *TodoStore {
	s := NewTodoStore()
	var items []TodoItem
	for i := 1; i <= n; i++ {
		items = append(items, item(string(rune('0'+i)), TodoPending))
	}
	s.Write(items)
	return s
}

func mustOK(t *testing.T, res tool.Result) {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected refusal: %s", res.Output)
	}
}

func mustRefuse(t *testing.T, res tool.Result, fragments ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("call was accepted, want a refusal; output %s", res.Output)
	}
	for _, f := range fragments {
		if !strings.Contains(res.Output, f) {
			t.Errorf("refusal %q should mention %q", res.Output, f)
		}
	}
	if !strings.Contains(res.Output, "not changed") {
		t.Errorf("refusal %q should say the list was not changed", res.Output)
	}
}

func TestTodoWriteSchemaHasStatusEnum(t *testing.T) {
	var schema struct {
		Properties struct {
			Todos struct {
				Items struct {
					Properties struct {
						Status struct {
							Enum []string `json:"enum"`
						} `json:"status"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"todos"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(NewTodoWriteTool(NewTodoStore()).Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	got := schema.Properties.Todos.Items.Properties.Status.Enum
	want := []string{"pending", "in_progress", "completed", "cancelled"}
	if !slices.Equal(got, want) {
		t.Fatalf("status enum = %v, want %v", got, want)
	}
}

func TestTodoWriteReadReturnsEmptyArrayNotNull(t *testing.T) {
	tl := NewTodoWriteTool(NewTodoStore())
	for _, in := range []any{map[string]any{}, map[string]any{"todos": []TodoItem{}}, map[string]any{"todos": nil}} {
		res := call(t, tl, in)
		mustOK(t, res)
		if res.Output != "[]" {
			t.Fatalf("read of an empty list = %q, want []", res.Output)
		}
	}
}

func TestTodoWriteFullReplaceAndRead(t *testing.T) {
	store := pendingStore(3)
	tl := NewTodoWriteTool(store)
	res := call(t, tl, todos(item("a", TodoPending), item("b", TodoInProgress)))
	mustOK(t, res)
	want := []TodoItem{item("a", TodoPending), item("b", TodoInProgress)}
	if got := store.Read(); !reflect.DeepEqual(got, want) {
		t.Fatalf("store = %v, want %v (full replace)", got, want)
	}
	var out []TodoItem
	if err := json.Unmarshal([]byte(call(t, tl, map[string]any{}).Output), &out); err != nil || !reflect.DeepEqual(out, want) {
		t.Fatalf("read = %v (%v), want %v", out, err, want)
	}
}

func TestTodoWriteCompletionLimit(t *testing.T) {
	t.Run("two direct completions refused", func(t *testing.T) {
		store := pendingStore(3)
		res := call(t, NewTodoWriteTool(store), todos(item("1", TodoCompleted), item("2", TodoCompleted), item("3", TodoPending)))
		mustRefuse(t, res, `"1", "2"`, "in_progress")
		if _, _, total := Progress(store.Read()); total != 3 || store.Read()[0].Status != TodoPending {
			t.Fatalf("store changed after a refusal: %v", store.Read())
		}
	})
	t.Run("one direct completion allowed", func(t *testing.T) {
		res := call(t, NewTodoWriteTool(pendingStore(3)), todos(item("1", TodoCompleted), item("2", TodoPending), item("3", TodoPending)))
		mustOK(t, res)
	})
	t.Run("new items created completed count as direct", func(t *testing.T) {
		res := call(t, NewTodoWriteTool(NewTodoStore()), todos(item("x", TodoCompleted), item("y", TodoCompleted)))
		mustRefuse(t, res, `"x", "y"`)
	})
	t.Run("in_progress to completed is free for many", func(t *testing.T) {
		store := NewTodoStore()
		var before, after []TodoItem
		for _, id := range []string{"1", "2", "3", "4", "5"} {
			before = append(before, item(id, TodoInProgress))
			after = append(after, item(id, TodoCompleted))
		}
		store.Write(before)
		mustOK(t, call(t, NewTodoWriteTool(store), todos(after...)))
	})
	t.Run("completed stays completed for free", func(t *testing.T) {
		store := NewTodoStore()
		store.Write([]TodoItem{item("1", TodoCompleted), item("2", TodoCompleted), item("3", TodoPending)})
		mustOK(t, call(t, NewTodoWriteTool(store), todos(item("1", TodoCompleted), item("2", TodoCompleted), item("3", TodoCompleted))))
	})
	t.Run("limit is configurable", func(t *testing.T) {
		res := call(t, NewTodoWriteTool(pendingStore(2), WithCompletionLimit(0)), todos(item("1", TodoCompleted), item("2", TodoPending)))
		mustRefuse(t, res, "at most 0")
	})
}

func TestTodoWriteCancelledCannotComplete(t *testing.T) {
	store := NewTodoStore()
	store.Write([]TodoItem{item("1", TodoCancelled)})
	tl := NewTodoWriteTool(store)
	mustRefuse(t, call(t, tl, todos(item("1", TodoCompleted))), "cancelled", "pending or in_progress first")
	// Reopening is the documented way back.
	mustOK(t, call(t, tl, todos(item("1", TodoInProgress))))
	mustOK(t, call(t, tl, todos(item("1", TodoCompleted))))
}

func TestTodoWriteValidation(t *testing.T) {
	for name, tc := range map[string]struct {
		items []TodoItem
		want  string
	}{
		"empty id":       {[]TodoItem{{ID: " ", Content: "x", Status: TodoPending}}, "empty id"},
		"duplicate id":   {[]TodoItem{item("1", TodoPending), item("1", TodoPending)}, "more than once"},
		"empty content":  {[]TodoItem{{ID: "1", Content: "  ", Status: TodoPending}}, "empty content"},
		"unknown status": {[]TodoItem{{ID: "1", Content: "x", Status: "done"}}, "unknown status"},
		"missing status": {[]TodoItem{{ID: "1", Content: "x"}}, "unknown status"},
	} {
		t.Run(name, func(t *testing.T) {
			mustRefuse(t, call(t, NewTodoWriteTool(NewTodoStore()), todos(tc.items...)), tc.want)
		})
	}
	res := call(t, NewTodoWriteTool(NewTodoStore()), map[string]any{"todo": []string{}})
	if !res.IsError || !strings.Contains(res.Output, "unknown field") {
		t.Fatalf("a misspelled field should be refused by name, got %+v", res)
	}
}

func TestTodoWriteEvidenceGate(t *testing.T) {
	ev := &Evidence{}
	store := pendingStore(3)
	tl := NewTodoWriteTool(store, WithEvidence(ev))

	// Flipping to in_progress needs no evidence, and resets the counter.
	ev.Record()
	mustOK(t, call(t, tl, todos(item("1", TodoInProgress), item("2", TodoPending), item("3", TodoPending))))
	if ev.Count() != 0 {
		t.Fatalf("a successful write must reset the evidence, count = %d", ev.Count())
	}
	// Completing right after, with no work in between: refused.
	res := call(t, tl, todos(item("1", TodoCompleted), item("2", TodoPending), item("3", TodoPending)))
	mustRefuse(t, res, "no evidence", `"1"`, "Do the work first")
	// A refused write does not consume anything; still refused.
	mustRefuse(t, call(t, tl, todos(item("1", TodoCompleted), item("2", TodoPending), item("3", TodoPending))), "no evidence")
	// After a real tool call it is accepted.
	ev.Record()
	mustOK(t, call(t, tl, todos(item("1", TodoCompleted), item("2", TodoPending), item("3", TodoPending))))
	// And the next completion again needs new work (direct pending→completed too).
	mustRefuse(t, call(t, tl, todos(item("1", TodoCompleted), item("2", TodoCompleted), item("3", TodoPending))), "no evidence")
	// Adding items is always allowed.
	mustOK(t, call(t, tl, todos(item("1", TodoCompleted), item("2", TodoPending), item("3", TodoPending), item("4", TodoPending))))
}

func TestTodoWriteEvidenceRestoredCount(t *testing.T) {
	// A continuation run restores the persisted counter with Set.
	ev := &Evidence{}
	ev.Set(2)
	store := NewTodoStore()
	store.Write([]TodoItem{item("1", TodoInProgress)})
	mustOK(t, call(t, NewTodoWriteTool(store, WithEvidence(ev)), todos(item("1", TodoCompleted))))
}

func TestTodoWriteWithoutEvidenceGate(t *testing.T) {
	store := pendingStore(1)
	mustOK(t, call(t, NewTodoWriteTool(store), todos(item("1", TodoCompleted))))
}

type failingWriter struct{ calls int }

func (f *failingWriter) Write([]TodoItem) error { f.calls++; return errors.New("disk full") }

func TestTodoWritePlanWriterFailureIsNotSentToModel(t *testing.T) {
	fw := &failingWriter{}
	res := call(t, NewTodoWriteTool(pendingStore(1), WithPlanWriter(fw)), todos(item("1", TodoInProgress)))
	mustOK(t, res)
	if fw.calls != 1 || strings.Contains(res.Output, "disk full") {
		t.Fatalf("writer calls = %d, output %q: failures must be logged, not returned", fw.calls, res.Output)
	}
}

type recordingWriter struct {
	mu   sync.Mutex
	last []TodoItem
}

func (r *recordingWriter) Write(items []TodoItem) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = items
	return nil
}

func TestPlanWritersFanOut(t *testing.T) {
	var pw PlanWriters
	a, b := &recordingWriter{}, &recordingWriter{}
	pw.Set(a)
	tl := NewTodoWriteTool(NewTodoStore(), WithPlanWriter(&pw))
	mustOK(t, call(t, tl, todos(item("1", TodoPending))))
	pw.Add(b)
	pw.Add(&failingWriter{})
	mustOK(t, call(t, tl, todos(item("1", TodoInProgress))))
	if len(a.last) != 1 || a.last[0].Status != TodoInProgress || len(b.last) != 1 {
		t.Fatalf("writers saw %v and %v", a.last, b.last)
	}
	if err := pw.Write(nil); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("PlanWriters.Write error = %v, want the joined failure", err)
	}
}

func TestCountsAsEvidence(t *testing.T) {
	if !CountsAsEvidence("bash", tool.Text("ok")) || CountsAsEvidence("bash", tool.Errorf("x")) ||
		CountsAsEvidence(TodoWriteName, tool.Text("[]")) || CountsAsEvidence(SubmitPlanName, tool.Text("")) {
		t.Fatal("CountsAsEvidence: only successful calls of other tools count")
	}
	var nilEv *Evidence
	nilEv.Record()
	if nilEv.Count() != 0 {
		t.Fatal("a nil Evidence counts nothing")
	}
}
