package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
)

func fullState() session.State {
	return session.State{
		Todos: []plan.TodoItem{
			{ID: "1", Content: "read main.go", Status: plan.TodoCompleted},
			{ID: "2", Content: "fix the <bug> & test", Status: plan.TodoInProgress},
			{ID: "3", Content: "write docs", Status: plan.TodoPending},
			{ID: "4", Content: "dropped", Status: plan.TodoCancelled},
		},
		Evidence: 3,
		Status:   plan.StatusExecuting,
		Plan: &plan.Plan{
			Title:   "Fix the bug",
			Content: "# Plan\n\n1. read\n2. fix — ünïcödé",
			Steps:   []string{"read main.go", "fix the bug", "write docs"},
		},
		TaskDir:  "/w/.data/tasks/981173106-fix-the-bug",
		PlanFile: "/w/.data/plans/981173106-abcd0001.md",
		Compaction: &session.Compaction{
			Summary:      "## Goal\nfix\n## Active Tasks\n[>] fix the bug",
			Covered:      12,
			BeforeTokens: 100000,
			AfterTokens:  9000,
		},
	}
}

func testStateRoundTrip(t *testing.T, s session.Store) {
	ctx := context.Background()
	sess := create(t, s, session.Session{})
	want := fullState()
	if err := s.SaveState(ctx, sess.ID, want); err != nil {
		t.Fatalf("SaveState: %v", err)
	}
	got, err := s.LoadState(ctx, sess.ID)
	if err != nil {
		t.Fatalf("LoadState: %v", err)
	}
	deepEqual(t, "state", got, want)

	// SaveState replaces the whole state: fields left empty are cleared.
	second := session.State{
		Todos:    []plan.TodoItem{{ID: "1", Content: "only", Status: plan.TodoPending}},
		Status:   plan.StatusAwaitingApproval,
		Evidence: 0,
	}
	if err := s.SaveState(ctx, sess.ID, second); err != nil {
		t.Fatalf("SaveState: %v", err)
	}
	got, err = s.LoadState(ctx, sess.ID)
	if err != nil {
		t.Fatalf("LoadState: %v", err)
	}
	deepEqual(t, "replaced state", got, second)

	// A saved state with no todos loads with a non-nil empty list.
	if err := s.SaveState(ctx, sess.ID, session.State{Evidence: 2}); err != nil {
		t.Fatalf("SaveState: %v", err)
	}
	got, err = s.LoadState(ctx, sess.ID)
	if err != nil {
		t.Fatalf("LoadState: %v", err)
	}
	deepEqual(t, "state without todos", got, session.State{Evidence: 2, Todos: []plan.TodoItem{}})
}

func testZeroState(t *testing.T, s session.Store) {
	sess := create(t, s, session.Session{})
	st, err := s.LoadState(context.Background(), sess.ID)
	if err != nil {
		t.Fatalf("LoadState: %v", err)
	}
	if st.Todos == nil {
		t.Error("zero state has nil Todos, want an empty slice")
	}
	deepEqual(t, "zero state", st, session.State{Todos: []plan.TodoItem{}})
}

func testUpdatedBumps(t *testing.T, s session.Store) {
	ctx := context.Background()
	a := create(t, s, session.Session{ID: "bump-000a", Created: past, Updated: past})
	appendMsg(t, s, a.ID, llm.Message{Role: llm.RoleUser, Content: "hi"})
	got := get(t, s, a.ID)
	if !got.Updated.After(past) {
		t.Errorf("AppendMessage left Updated at %v", got.Updated)
	}
	if !got.Created.Equal(past) {
		t.Errorf("AppendMessage changed Created to %v", got.Created)
	}

	b := create(t, s, session.Session{ID: "bump-000b", Created: past, Updated: past, Workdir: "/w", Model: "m1"})
	b.Title, b.Model, b.Mode = "new title", "anthropic/claude", plan.ModeAutoEdit
	b.Workdir = "/elsewhere" // not saved by Update
	if err := s.Update(ctx, b); err != nil {
		t.Fatalf("Update: %v", err)
	}
	got = get(t, s, b.ID)
	want := b
	want.Workdir = "/w"
	sameSession(t, got, want)
	if !got.Updated.After(past) {
		t.Errorf("Update left Updated at %v", got.Updated)
	}
}

func testConcurrentAppends(t *testing.T, s session.Store) {
	sess := create(t, s, session.Session{})
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				m := llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("w%d-%03d", w, i)}
				if err := s.AppendMessage(context.Background(), sess.ID, m); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("AppendMessage: %v", err)
	}
	got := messages(t, s, sess.ID)
	if len(got) != workers*each {
		t.Fatalf("got %d messages, want %d", len(got), workers*each)
	}
	// Each writer's messages appear in the order it wrote them.
	next := make(map[int]int)
	for _, m := range got {
		var w, i int
		if _, err := fmt.Sscanf(m.Content, "w%d-%d", &w, &i); err != nil {
			t.Fatalf("unexpected message %q", m.Content)
		}
		if i != next[w] {
			t.Errorf("writer %d: message %d came where %d was expected", w, i, next[w])
		}
		next[w] = i + 1
	}
}

// testParentLink: a sub-agent's session keeps its ParentID; List leaves
// children out unless asked, and Parent lists one session's children.
func testParentLink(t *testing.T, s session.Store) {
	ctx := context.Background()
	create(t, s, session.Session{ID: "p1-aaaa", Workdir: "/a", Created: past, Updated: past})
	create(t, s, session.Session{ID: "c1-aaaa", Workdir: "/a", ParentID: "p1-aaaa", Created: past, Updated: past.Add(time.Hour)})
	create(t, s, session.Session{ID: "c2-aaaa", Workdir: "/a", ParentID: "p1-aaaa", Created: past, Updated: past.Add(2 * time.Hour)})
	create(t, s, session.Session{ID: "p2-aaaa", Workdir: "/a", Created: past, Updated: past.Add(-time.Hour)})
	got, err := s.Get(ctx, "c1-aaaa")
	if err != nil {
		t.Fatal(err)
	}
	if got.ParentID != "p1-aaaa" {
		t.Errorf("Get(child).ParentID = %q, want p1-aaaa", got.ParentID)
	}
	if top, _ := s.Get(ctx, "p1-aaaa"); top.ParentID != "" {
		t.Errorf("Get(top-level).ParentID = %q, want empty", top.ParentID)
	}
	deepEqual(t, "List hides children", list(t, s, session.ListOptions{Workdir: "/a"}), []string{"p1-aaaa", "p2-aaaa"})
	deepEqual(t, "List limit 1 is the latest top-level session", list(t, s, session.ListOptions{Workdir: "/a", Limit: 1}), []string{"p1-aaaa"})
	deepEqual(t, "List with children", list(t, s, session.ListOptions{IncludeChildren: true}), []string{"c2-aaaa", "c1-aaaa", "p1-aaaa", "p2-aaaa"})
	deepEqual(t, "List children of p1", list(t, s, session.ListOptions{Parent: "p1-aaaa"}), []string{"c2-aaaa", "c1-aaaa"})
	listed, err := s.ListSummaries(ctx, session.ListOptions{Parent: "p1-aaaa"})
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 2 || listed[0].Session.ParentID != "p1-aaaa" {
		t.Errorf("ListSummaries(Parent) = %+v, want the two children with their ParentID", listed)
	}
	if got := list(t, s, session.ListOptions{Parent: "p2-aaaa"}); len(got) != 0 {
		t.Errorf("children of a session without any = %v", got)
	}
}
