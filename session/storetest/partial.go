package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
)

func testMessagesFrom(t *testing.T, s session.Store) {
	ctx := context.Background()
	sess := create(t, s, session.Session{})
	other := create(t, s, session.Session{})
	want := conversation()
	appendMsg(t, s, sess.ID, want...)
	appendMsg(t, s, other.ID, llm.Message{Role: llm.RoleUser, Content: "elsewhere"})
	for _, from := range []int{-1, 0, 1, 3, len(want) - 1, len(want), len(want) + 5} {
		got, err := s.MessagesFrom(ctx, sess.ID, from)
		if err != nil {
			t.Fatalf("MessagesFrom(%d): %v", from, err)
		}
		rest := want[min(max(from, 0), len(want)):]
		if len(rest) == 0 {
			rest = []llm.Message{}
		}
		deepEqual(t, "MessagesFrom", got, rest)
	}
	if _, err := s.MessagesFrom(ctx, "no-such-session", 2); err == nil {
		t.Error("MessagesFrom of an unknown session: no error")
	} else {
		wantNotFound(t, "MessagesFrom", err)
	}
	empty := create(t, s, session.Session{})
	if got, err := s.MessagesFrom(ctx, empty.ID, 0); err != nil || got == nil || len(got) != 0 {
		t.Errorf("MessagesFrom of an empty session = %v, %v; want an empty, non-nil slice", got, err)
	}
}

func testListSummaries(t *testing.T, s session.Store) {
	ctx := context.Background()
	if got, err := s.ListSummaries(ctx, session.ListOptions{}); err != nil || got == nil || len(got) != 0 {
		t.Errorf("ListSummaries of an empty store = %v, %v; want an empty, non-nil slice", got, err)
	}
	plain := create(t, s, session.Session{ID: "plain-aaaa", Workdir: "/a", Created: past, Updated: past.Add(time.Hour)})
	appendMsg(t, s, plain.ID, conversation()...)
	// Each state is saved to its own session; the newest is listed first.
	states := SummaryStates()
	want := make([]session.Summary, len(states)+1)
	want[len(states)] = session.Summary{Session: plain, Status: plan.StatusIdle} // nothing saved
	for i, st := range states {
		sess := create(t, s, session.Session{ID: fmt.Sprintf("state%d-bbbb", i), Workdir: "/b", Created: past, Updated: past})
		if err := s.SaveState(ctx, sess.ID, st); err != nil {
			t.Fatalf("SaveState: %v", err)
		}
		done, _, total := plan.Progress(st.Todos)
		status := st.Status
		if status == "" {
			status = plan.StatusIdle
		}
		want[len(states)-1-i] = session.Summary{Session: sess, Status: status, TodosDone: done, TodosTotal: total}
	}
	got, err := s.ListSummaries(ctx, session.ListOptions{})
	if err != nil {
		t.Fatalf("ListSummaries: %v", err)
	}
	sessions, err := s.List(ctx, session.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(got) != len(want) || len(sessions) != len(want) {
		t.Fatalf("ListSummaries gave %d sessions, List %d; want %d each", len(got), len(sessions), len(want))
	}
	for i := range got {
		sameSession(t, got[i].Session, sessions[i])
		if !got[i].Session.Updated.Equal(sessions[i].Updated) || !got[i].Session.Created.Equal(sessions[i].Created) {
			t.Errorf("ListSummaries times %v, %v; List's %v, %v", got[i].Session.Created, got[i].Session.Updated,
				sessions[i].Created, sessions[i].Updated)
		}
		if got[i].Session.ID != want[i].Session.ID {
			t.Fatalf("listed %s at %d, want %s", got[i].Session.ID, i, want[i].Session.ID)
		}
		g, w := got[i], want[i]
		g.Session, w.Session = session.Session{}, session.Session{}
		deepEqual(t, "summary of "+want[i].Session.ID, g, w)
	}
	if got[len(got)-1].Session.MessageCount != len(conversation()) {
		t.Errorf("MessageCount = %d, want %d", got[len(got)-1].Session.MessageCount, len(conversation()))
	}
	only, err := s.ListSummaries(ctx, session.ListOptions{Workdir: "/a", Limit: 5})
	if err != nil || len(only) != 1 || only[0].Session.ID != plain.ID {
		t.Errorf("ListSummaries /a = %+v, %v; want only %s", only, err, plain.ID)
	}
	one, err := s.ListSummaries(ctx, session.ListOptions{Limit: 1})
	if err != nil || len(one) != 1 || one[0].Session.ID != want[0].Session.ID {
		t.Errorf("ListSummaries limit 1 = %+v, %v; want only %s", one, err, want[0].Session.ID)
	}
}

// SummaryStates are states whose listed status and counts must be what
// plan.Progress makes of them, however a store computes them: one of
// each todo status, none, "todos": null, and text that only looks like a
// completed todo. A store's own tests use them where the suite cannot
// reach, such as a migration that fills the counts in from saved states.
func SummaryStates() []session.State {
	// Text that looks like a todo's status anywhere but in a todo's
	// status field must not count.
	decoy := `{"todos":[{"id":"1","content":"x","status":"completed"}],"status":"completed"}`
	big := strings.Repeat("a plan long enough to spill out of a database page; ", 2000)
	return []session.State{
		fullState(), // one of each todo status
		{Status: plan.StatusStalled, Todos: []plan.TodoItem{
			{ID: "1", Content: "a", Status: plan.TodoCompleted},
			{ID: "2", Content: "b", Status: plan.TodoCompleted},
			{ID: "3", Content: "c", Status: plan.TodoCancelled},
			{ID: "4", Content: "d", Status: plan.TodoPending},
			{ID: "5", Content: "e", Status: plan.TodoInProgress},
			{ID: "completed", Content: "f", Status: plan.TodoCompleted},
		}},
		{}, // no status, "todos": null
		{Status: plan.StatusAwaitingApproval, Todos: []plan.TodoItem{}},
		{Status: plan.StatusExecuting, Evidence: 7,
			Todos: []plan.TodoItem{
				{ID: "completed", Content: decoy, Status: plan.TodoPending},
				{ID: "2", Content: "status: completed", Status: plan.TodoCancelled},
				{ID: "3", Content: "ok", Status: plan.TodoCompleted},
			},
			Plan:       &plan.Plan{Title: "completed", Content: decoy + big, Steps: []string{decoy, "completed"}},
			TaskDir:    "/w/completed",
			Compaction: &session.Compaction{Summary: decoy + big + "\x00 \u0000", Covered: 3},
		},
		{Status: plan.StatusIdle, Todos: []plan.TodoItem{{ID: "1", Content: "only", Status: plan.TodoCompleted}}},
	}
}

// CheckSummaries checks a listing of sessions whose saved states were
// states, in listing order, each listed with the status and todo counts
// plan.Progress makes of its state; a listed session past the end of
// states saved none. Sessions are named by ids[i].
func CheckSummaries(t *testing.T, list []session.Summary, ids []string, states []session.State) {
	t.Helper()
	if len(list) != len(ids) {
		t.Fatalf("listed %d sessions, want %d", len(list), len(ids))
	}
	for i, got := range list {
		var st session.State
		if i < len(states) {
			st = states[i]
		}
		done, _, total := plan.Progress(st.Todos)
		status := st.Status
		if status == "" {
			status = plan.StatusIdle
		}
		if got.ID != ids[i] || got.Status != status || got.TodosDone != done || got.TodosTotal != total {
			t.Errorf("session %d listed as %s %s %d/%d; want %s %s %d/%d",
				i, got.ID, got.Status, got.TodosDone, got.TodosTotal, ids[i], status, done, total)
		}
	}
}
