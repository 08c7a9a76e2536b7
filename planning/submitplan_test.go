package planning

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

func TestSubmitPlan(t *testing.T) {
	store := NewTodoStore()
	store.Write([]TodoItem{item("old", TodoInProgress)})
	ev := &Evidence{}
	ev.Set(5)
	rec := &recordingWriter{}
	var got []Plan
	tl := NewSubmitPlanTool(store, func(p Plan) error { got = append(got, p); return nil }, WithSubmitEvidence(ev), WithSubmitPlanWriter(rec))

	res := call(t, tl, map[string]any{"title": "  Add login ", "content": "## Approach\nx", "steps": []string{"create auth.go", " add test "}})
	if res.IsError || !res.EndTurn {
		t.Fatalf("result %+v: want success with EndTurn", res)
	}
	if !strings.Contains(res.Output, "awaits the user's approval") {
		t.Errorf("result %q should say the plan awaits approval", res.Output)
	}
	want := Plan{Title: "Add login", Content: "## Approach\nx", Steps: []string{"create auth.go", "add test"}}
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("onSubmit got %+v, want %+v", got, want)
	}
	wantTodos := []TodoItem{{ID: "1", Content: "create auth.go", Status: TodoPending}, {ID: "2", Content: "add test", Status: TodoPending}}
	if !reflect.DeepEqual(store.Read(), wantTodos) || !reflect.DeepEqual(rec.last, wantTodos) {
		t.Fatalf("todos = %v (writer %v), want %v", store.Read(), rec.last, wantTodos)
	}
	if ev.Count() != 0 {
		t.Errorf("planning reads must not count as evidence after submit, count = %d", ev.Count())
	}
	// What the user sees of the call is not the model's instruction.
	input, _ := json.Marshal(map[string]any{"title": "Add login", "steps": []string{"a", "b"}})
	if s := tl.(tool.Summarizer).Summary(input, res); s != "plan submitted for your review (2 steps)" {
		t.Errorf("summary %q", s)
	}
}

func TestSubmitPlanRefusals(t *testing.T) {
	for name, tc := range map[string]struct {
		in   map[string]any
		want string
	}{
		"empty title": {map[string]any{"title": " ", "content": "c", "steps": []string{"a"}}, "title is empty"},
		"no steps":    {map[string]any{"title": "t", "content": "c", "steps": []string{}}, "no steps"},
		"null steps":  {map[string]any{"title": "t", "content": "c"}, "no steps"},
		"empty step":  {map[string]any{"title": "t", "content": "c", "steps": []string{"a", ""}}, "step 2 is empty"},
	} {
		t.Run(name, func(t *testing.T) {
			store := NewTodoStore()
			called := false
			res := call(t, NewSubmitPlanTool(store, func(Plan) error { called = true; return nil }), tc.in)
			if !res.IsError || res.EndTurn || called || len(store.Read()) != 0 {
				t.Fatalf("result %+v, onSubmit called %v, todos %v: want a refusal that changes nothing", res, called, store.Read())
			}
			if !strings.Contains(res.Output, tc.want) || !strings.Contains(res.Output, "call submit_plan again") {
				t.Errorf("refusal %q should mention %q and how to recover", res.Output, tc.want)
			}
		})
	}
}

func TestFallbackPlan(t *testing.T) {
	items := []TodoItem{item("1", TodoPending), item("2", TodoCancelled), item("3", TodoInProgress)}
	p := FallbackPlan(items, "\n\n## **Refactor the store**\nDetails here.\n")
	if p.Title != "Refactor the store" {
		t.Errorf("title = %q", p.Title)
	}
	if !reflect.DeepEqual(p.Steps, []string{"step 1", "step 3"}) {
		t.Errorf("steps = %v", p.Steps)
	}
	if p.Content != "## **Refactor the store**\nDetails here." {
		t.Errorf("content = %q", p.Content)
	}
	if p := FallbackPlan(nil, "  \n#\n"); p.Title != "Plan" || p.Steps != nil {
		t.Errorf("empty text: %+v", p)
	}
	long := FallbackPlan(nil, strings.Repeat("é", 300))
	if n := len([]rune(long.Title)); n != maxFallbackTitle {
		t.Errorf("long title has %d runes, want %d", n, maxFallbackTitle)
	}
}
