package planning

// Tests for DESIGN §2 rules not pinned down elsewhere in this package.

import (
	"reflect"
	"testing"
)

func TestModeNextCycles(t *testing.T) {
	modes := []Mode{ModeDefault, ModePlan, ModeAutoEdit}
	for i, m := range modes {
		if got, want := m.Next(), modes[(i+1)%3]; got != want {
			t.Errorf("%s.Next() = %s, want %s", m, got, want)
		}
	}
	m := ModeDefault
	for range 6 {
		m = m.Next()
	}
	if m != ModeDefault {
		t.Errorf("six Shift+Tabs from default land on %s", m)
	}
	for _, m := range modes {
		back, err := ParseMode(m.String())
		if err != nil || back != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), back, err)
		}
	}
	if _, err := ParseMode("executing"); err == nil {
		t.Error("a status name parsed as a mode")
	}
}

// TestModeAndStatusAreSeparate: a mode is what the user chose, a status is
// the phase of the workflow; neither type can hold the other's values.
func TestModeAndStatusAreSeparate(t *testing.T) {
	if reflect.TypeOf(ModePlan) == reflect.TypeOf(StatusIdle) {
		t.Fatal("Mode and Status are the same type")
	}
	statuses := []Status{StatusIdle, StatusRunning, StatusAwaitingApproval, StatusExecuting, StatusStalled}
	seen := map[Status]bool{}
	for _, s := range statuses {
		if seen[s] {
			t.Errorf("status %q defined twice", s)
		}
		seen[s] = true
		if _, err := ParseMode(string(s)); err == nil {
			t.Errorf("status %q is also a mode name", s)
		}
	}
	if len(seen) != 5 {
		t.Errorf("%d statuses, want 5", len(seen))
	}
}

// TestTodoStoreDoubleCopy: neither the caller's slice nor a returned one
// aliases the store.
func TestTodoStoreDoubleCopy(t *testing.T) {
	s := NewTodoStore()
	in := []TodoItem{item("1", TodoPending), item("2", TodoPending)}
	out := s.Write(in)
	in[0].Status = TodoCompleted
	out[1].Status = TodoCompleted
	read := s.Read()
	read[0].Content = "changed"
	want := []TodoItem{item("1", TodoPending), item("2", TodoPending)}
	if got := s.Read(); !reflect.DeepEqual(got, want) {
		t.Fatalf("store = %v, want %v", got, want)
	}
	if got := NewTodoStore().Read(); got == nil || len(got) != 0 {
		t.Fatalf("empty store Read = %#v, want an empty non-nil slice", got)
	}
	// Storage without judgment: any state can be written directly.
	s.Write([]TodoItem{{ID: "", Content: "", Status: "whatever"}})
	if len(s.Read()) != 1 {
		t.Fatal("TodoStore validated its input")
	}
}

func TestFormatForInjection(t *testing.T) {
	s := NewTodoStore()
	if got := s.FormatForInjection(); got != "" {
		t.Fatalf("empty store: %q", got)
	}
	s.Write([]TodoItem{
		{ID: "1", Content: "done thing", Status: TodoCompleted},
		{ID: "2", Content: "current thing", Status: TodoInProgress},
		{ID: "3", Content: "next thing", Status: TodoPending},
		{ID: "4", Content: "dropped thing", Status: TodoCancelled},
	})
	if got, want := s.FormatForInjection(), "[>] current thing\n[ ] next thing"; got != want {
		t.Fatalf("FormatForInjection = %q, want %q", got, want)
	}
}

// TestTodoWriteLimitCountsOnlyDirectCompletions: one direct completion
// plus any number via in_progress in the same call is fine; the
// limit applies to pending→completed only.
func TestTodoWriteLimitCountsOnlyDirectCompletions(t *testing.T) {
	store := NewTodoStore()
	store.Write([]TodoItem{item("1", TodoInProgress), item("2", TodoInProgress), item("3", TodoInProgress), item("4", TodoPending), item("5", TodoPending)})
	tl := NewTodoWriteTool(store)
	mustRefuse(t, call(t, tl, todos(item("1", TodoCompleted), item("2", TodoCompleted), item("3", TodoCompleted), item("4", TodoCompleted), item("5", TodoCompleted))),
		`"4", "5"`)
	mustOK(t, call(t, tl, todos(item("1", TodoCompleted), item("2", TodoCompleted), item("3", TodoCompleted), item("4", TodoCompleted), item("5", TodoPending))))
}

// TestTodoWriteCancelledToCompletedRefusedEvenWithEvidence: the
// cancelled→completed refusal does not depend on the evidence gate or the
// batch limit.
func TestTodoWriteCancelledToCompletedRefusedEvenWithEvidence(t *testing.T) {
	ev := &Evidence{}
	ev.Set(10)
	store := NewTodoStore()
	store.Write([]TodoItem{item("1", TodoCancelled), item("2", TodoInProgress)})
	tl := NewTodoWriteTool(store, WithEvidence(ev), WithCompletionLimit(5))
	mustRefuse(t, call(t, tl, todos(item("1", TodoCompleted), item("2", TodoInProgress))), `"1" was cancelled`)
	if got := store.Read(); got[0].Status != TodoCancelled {
		t.Fatalf("store changed: %v", got)
	}
}

// TestExecutorInProgressIsNotDone: execution is complete only when nothing
// is pending *or* in progress; a list of in-progress items is still work.
func TestExecutorInProgressIsNotDone(t *testing.T) {
	m := newFake(2, func(round int, items []TodoItem) []TodoItem {
		for i := range items {
			if items[i].Status == TodoPending {
				items[i].Status = TodoInProgress
			}
		}
		if round == 2 {
			items[0].Status = TodoCompleted
		}
		if round == 3 {
			items[1].Status = TodoCancelled
		}
		return items
	})
	out, err := NewExecutor(m.run, m.store.Read).Run(t.Context())
	if err != nil || out != ExecCompleted || len(m.prompts) != 3 {
		t.Fatalf("Run = %v, %v after %d rounds; want completed after 3 (in_progress items are not done)", out, err, len(m.prompts))
	}
}
