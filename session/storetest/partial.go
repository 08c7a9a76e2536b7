package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
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

func testListWithState(t *testing.T, s session.Store) {
	ctx := context.Background()
	if got, err := s.ListWithState(ctx, session.ListOptions{}); err != nil || got == nil || len(got) != 0 {
		t.Errorf("ListWithState of an empty store = %v, %v; want an empty, non-nil slice", got, err)
	}
	plain := create(t, s, session.Session{ID: "plain-aaaa", Workdir: "/a", Created: past, Updated: past.Add(time.Hour)})
	planned := create(t, s, session.Session{ID: "planned-bbbb", Workdir: "/b", Created: past, Updated: past})
	appendMsg(t, s, plain.ID, conversation()...)
	full := fullState()
	if err := s.SaveState(ctx, planned.ID, full); err != nil {
		t.Fatalf("SaveState: %v", err)
	}
	// SaveState made "planned" the most recent.
	got, err := s.ListWithState(ctx, session.ListOptions{})
	if err != nil {
		t.Fatalf("ListWithState: %v", err)
	}
	sessions, err := s.List(ctx, session.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(got) != 2 || len(sessions) != 2 {
		t.Fatalf("ListWithState = %+v, List = %+v; want two sessions each", got, sessions)
	}
	for i := range got {
		sameSession(t, got[i].Session, sessions[i])
	}
	deepEqual(t, "order", []string{got[0].Session.ID, got[1].Session.ID}, []string{planned.ID, plain.ID})
	deepEqual(t, "saved state", got[0].State, full)
	deepEqual(t, "no state", got[1].State, session.State{Todos: []planning.TodoItem{}})
	if got[1].Session.MessageCount != len(conversation()) {
		t.Errorf("MessageCount = %d, want %d", got[1].Session.MessageCount, len(conversation()))
	}
	only, err := s.ListWithState(ctx, session.ListOptions{Workdir: "/a", Limit: 5})
	if err != nil || len(only) != 1 || only[0].Session.ID != plain.ID {
		t.Errorf("ListWithState /a = %+v, %v; want only %s", only, err, plain.ID)
	}
	one, err := s.ListWithState(ctx, session.ListOptions{Limit: 1})
	if err != nil || len(one) != 1 || one[0].Session.ID != planned.ID {
		t.Errorf("ListWithState limit 1 = %+v, %v; want only %s", one, err, planned.ID)
	}
}
