// Package storetest is the test suite every session.Store implementation
// must pass. An implementation's own tests call Run with a function that
// opens a fresh, empty store:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) session.Store {
//			s, err := mystore.Open(filepath.Join(t.TempDir(), "x.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// The suite needs no injected clock: where it checks times it creates
// sessions with explicit Created and Updated values far in the past.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
)

// Run runs the suite. open must return a new, empty store each time it is
// called; Run closes every store it opens.
func Run(t *testing.T, open func(t *testing.T) session.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s session.Store)
	}{
		{"CreateAndGet", testCreateAndGet},
		{"CreateDuplicateID", testCreateDuplicateID},
		{"MessagesRoundTrip", testMessagesRoundTrip},
		{"MessagesPerSession", testMessagesPerSession},
		{"EmptyHistory", testEmptyHistory},
		{"UnknownSession", testUnknownSession},
		{"ListOrderAndFilter", testListOrderAndFilter},
		{"GetByPrefix", testGetByPrefix},
		{"DeleteCascades", testDeleteCascades},
		{"StateRoundTrip", testStateRoundTrip},
		{"ZeroState", testZeroState},
		{"UpdatedBumps", testUpdatedBumps},
		{"ConcurrentAppends", testConcurrentAppends},
		{"MessagesFrom", testMessagesFrom},
		{"ListSummaries", testListSummaries},
		{"Checkpoints", testCheckpoints},
		{"ImagesRoundTrip", testImagesRoundTrip},
		{"ParentLink", testParentLink},
		{"Usage", testUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, s)
		})
	}
}

// past is a fixed time, millisecond-aligned so that stores keeping only
// millisecond precision round-trip it exactly.
var past = time.Date(2001, 2, 3, 4, 5, 6, 7_000_000, time.UTC)

func create(t *testing.T, s session.Store, sess session.Session) session.Session {
	t.Helper()
	if err := s.Create(context.Background(), &sess); err != nil {
		t.Fatalf("Create(%+v): %v", sess, err)
	}
	return sess
}

func get(t *testing.T, s session.Store, id string) session.Session {
	t.Helper()
	got, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%q): %v", id, err)
	}
	return got
}

func appendMsg(t *testing.T, s session.Store, id string, msgs ...llm.Message) {
	t.Helper()
	for _, m := range msgs {
		if err := s.AppendMessage(context.Background(), id, m); err != nil {
			t.Fatalf("AppendMessage(%q): %v", id, err)
		}
	}
}

func messages(t *testing.T, s session.Store, id string) []llm.Message {
	t.Helper()
	got, err := s.Messages(context.Background(), id)
	if err != nil {
		t.Fatalf("Messages(%q): %v", id, err)
	}
	return got
}

// sameSession compares everything but the times, which callers check.
func sameSession(t *testing.T, got, want session.Session) {
	t.Helper()
	g, w := got, want
	g.Created, g.Updated, w.Created, w.Updated = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if g != w {
		t.Errorf("session mismatch\n got: %+v\nwant: %+v", got, want)
	}
}

func deepEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("%s mismatch\n got: %s\nwant: %s\n(go values: got %#v, want %#v)", what, g, w, got, want)
	}
}

func testCreateAndGet(t *testing.T, s session.Store) {
	before := time.Now().Add(-time.Second)
	sess := create(t, s, session.Session{Workdir: "/w", Model: "openai/gpt-x", Title: "hello", Mode: plan.ModePlan})
	if sess.ID == "" {
		t.Fatal("Create left ID empty")
	}
	if sess.Created.Before(before) || !sess.Updated.Equal(sess.Created) {
		t.Errorf("Create filled Created=%v Updated=%v; want now and equal", sess.Created, sess.Updated)
	}
	got := get(t, s, sess.ID)
	sameSession(t, got, sess)
	if !got.Created.Equal(sess.Created.Truncate(time.Millisecond)) && !got.Created.Equal(sess.Created) {
		t.Errorf("Created = %v, want %v", got.Created, sess.Created)
	}

	explicit := create(t, s, session.Session{ID: "explicit-id-1", Created: past, Updated: past.Add(time.Hour)})
	got = get(t, s, "explicit-id-1")
	sameSession(t, got, explicit)
	if !got.Created.Equal(past) || !got.Updated.Equal(past.Add(time.Hour)) {
		t.Errorf("times = %v, %v; want %v, %v", got.Created, got.Updated, past, past.Add(time.Hour))
	}
}

func testCreateDuplicateID(t *testing.T, s session.Store) {
	create(t, s, session.Session{ID: "dup-0001"})
	err := s.Create(context.Background(), &session.Session{ID: "dup-0001"})
	if err == nil {
		t.Fatal("second Create with the same id succeeded")
	}
}

// conversation exercises every llm.Message field, tool-call inputs that
// plain JSON encoding would alter, and non-ASCII text.
func conversation() []llm.Message {
	return []llm.Message{
		{Role: llm.RoleUser, Content: "fix the bug in main.go — ünïcödé, emoji 🚀, <html> & \"quotes\"\nline two"},
		{
			Role:      llm.RoleAssistant,
			Content:   "Let me look.",
			Reasoning: "The user wants a fix; read the file first.",
			// A provider's reasoning as it must go back: byte for byte.
			ReasoningBlocks: []llm.ReasoningBlock{
				{Provider: "anthropic", Type: "thinking", Text: "The user wants a fix; <read> & \"check\".", Signature: "EqQBCgIYAhIM+/sig=="},
				{Provider: "anthropic", Type: "redacted_thinking", Data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlx", After: 2},
				{Provider: "openai", Type: "reasoning", Data: `{"type":"reasoning","summary":[],"encrypted_content":"gAAAAB<x>&"}`, After: 5},
			},
			ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"main.go"}`)},
				{ID: "call_2", Name: "search_files", Input: json.RawMessage(`{ "pattern": "a<b && c>d",  "glob": "*.go" }`)},
				{ID: "call_3", Name: "bash", Input: json.RawMessage(`{"command": "ls`)}, // malformed, as a model may send
				{ID: "call_4", Name: "list_files", Input: json.RawMessage(`{}`)},
				{ID: "call_5", Name: "todo_write"},
			},
		},
		{Role: llm.RoleTool, ToolCallID: "call_1", Name: "read_file", Content: "1\tpackage main\n"},
		{Role: llm.RoleTool, ToolCallID: "call_2", Name: "search_files", Content: ""},
		{Role: llm.RoleTool, ToolCallID: "call_3", Name: "bash", Content: "invalid arguments for bash: unexpected end of JSON input", IsError: true},
		{Role: llm.RoleTool, ToolCallID: "call_4", Name: "list_files", Content: "main.go"},
		{Role: llm.RoleTool, ToolCallID: "call_5", Name: "todo_write", Content: "[]"},
		{Role: llm.RoleAssistant, Content: "Done."},
	}
}

func testMessagesRoundTrip(t *testing.T, s session.Store) {
	sess := create(t, s, session.Session{Workdir: "/w"})
	want := conversation()
	appendMsg(t, s, sess.ID, want...)
	deepEqual(t, "Messages", messages(t, s, sess.ID), want)
	if got := get(t, s, sess.ID).MessageCount; got != len(want) {
		t.Errorf("Get MessageCount = %d, want %d", got, len(want))
	}
	list, err := s.List(context.Background(), session.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list) != 1 || list[0].MessageCount != len(want) {
		t.Errorf("List = %+v, want one session with MessageCount %d", list, len(want))
	}
}

// Images round-trip byte for byte, the same picture in two messages and
// two sessions included, and survive the deletion of another session that
// used them.
func testImagesRoundTrip(t *testing.T, s session.Store) {
	pic := []byte("\x89PNG\r\n\x1a\n\x00\x01binary\xff")
	other := []byte("GIF89a")
	a := create(t, s, session.Session{Workdir: "/w"})
	b := create(t, s, session.Session{Workdir: "/w"})
	want := []llm.Message{
		{Role: llm.RoleUser, Content: "what is this?", Images: []llm.Image{
			{MediaType: "image/png", Data: pic, Name: "a.png", Width: 3, Height: 2},
			{MediaType: "image/gif", Data: other}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Name: "read_file", Content: "Attached a.png.",
			Images: []llm.Image{{MediaType: "image/png", Data: pic, Name: "a.png", Width: 3, Height: 2}}},
	}
	appendMsg(t, s, a.ID, want...)
	appendMsg(t, s, b.ID, want[1])
	deepEqual(t, "Messages with images", messages(t, s, a.ID), want)
	if err := s.Delete(context.Background(), a.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	deepEqual(t, "Messages of the session sharing a picture", messages(t, s, b.ID), want[1:])
}

func testMessagesPerSession(t *testing.T, s session.Store) {
	a := create(t, s, session.Session{})
	b := create(t, s, session.Session{})
	for i := range 5 {
		appendMsg(t, s, a.ID, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("a%d", i)})
		appendMsg(t, s, b.ID, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("b%d", i)})
	}
	for _, c := range []struct{ id, prefix string }{{a.ID, "a"}, {b.ID, "b"}} {
		got := messages(t, s, c.id)
		if len(got) != 5 {
			t.Fatalf("session %s has %d messages, want 5", c.prefix, len(got))
		}
		for i, m := range got {
			if want := fmt.Sprintf("%s%d", c.prefix, i); m.Content != want {
				t.Errorf("session %s message %d = %q, want %q", c.prefix, i, m.Content, want)
			}
		}
	}
}

func testEmptyHistory(t *testing.T, s session.Store) {
	sess := create(t, s, session.Session{})
	if got := messages(t, s, sess.ID); len(got) != 0 {
		t.Errorf("new session has %d messages", len(got))
	}
	if got := get(t, s, sess.ID).MessageCount; got != 0 {
		t.Errorf("MessageCount = %d, want 0", got)
	}
}

func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, session.ErrNotFound) {
		t.Errorf("%s: err = %v, want session.ErrNotFound", what, err)
	}
}

func testUnknownSession(t *testing.T, s session.Store) {
	ctx := context.Background()
	create(t, s, session.Session{ID: "known-0001"})
	const id = "nosuch-session"
	_, err := s.Get(ctx, id)
	wantNotFound(t, "Get", err)
	wantNotFound(t, "AppendMessage", s.AppendMessage(ctx, id, llm.Message{Role: llm.RoleUser, Content: "x"}))
	wantNotFound(t, "Update", s.Update(ctx, session.Session{ID: id, Title: "x"}))
	wantNotFound(t, "Delete", s.Delete(ctx, id))
	wantNotFound(t, "SaveState", s.SaveState(ctx, id, session.State{Evidence: 1}))
	if msgs, err := s.Messages(ctx, id); err != nil {
		wantNotFound(t, "Messages", err)
	} else if len(msgs) != 0 {
		t.Errorf("Messages of an unknown session = %v", msgs)
	}
	if st, err := s.LoadState(ctx, id); err != nil {
		wantNotFound(t, "LoadState", err)
	} else if st.Evidence != 0 {
		t.Errorf("LoadState of an unknown session = %+v", st)
	}
}

func ids(list []session.Session) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}

func list(t *testing.T, s session.Store, opts session.ListOptions) []string {
	t.Helper()
	got, err := s.List(context.Background(), opts)
	if err != nil {
		t.Fatalf("List(%+v): %v", opts, err)
	}
	return ids(got)
}

func testListOrderAndFilter(t *testing.T, s session.Store) {
	if got := list(t, s, session.ListOptions{}); len(got) != 0 {
		t.Errorf("List of an empty store = %v", got)
	}
	// Created in an order different from their Updated order.
	for _, c := range []struct {
		id, dir string
		hours   int
	}{
		{"s3-aaaa", "/a", 3}, {"s1-aaaa", "/a", 1}, {"s5-bbbb", "/b", 5}, {"s2-bbbb", "/b", 2}, {"s4-aaaa", "/a", 4},
	} {
		create(t, s, session.Session{ID: c.id, Workdir: c.dir, Created: past, Updated: past.Add(time.Duration(c.hours) * time.Hour)})
	}
	deepEqual(t, "List all", list(t, s, session.ListOptions{}), []string{"s5-bbbb", "s4-aaaa", "s3-aaaa", "s2-bbbb", "s1-aaaa"})
	deepEqual(t, "List /a", list(t, s, session.ListOptions{Workdir: "/a"}), []string{"s4-aaaa", "s3-aaaa", "s1-aaaa"})
	deepEqual(t, "List /b limit 1", list(t, s, session.ListOptions{Workdir: "/b", Limit: 1}), []string{"s5-bbbb"})
	deepEqual(t, "List limit 2", list(t, s, session.ListOptions{Limit: 2}), []string{"s5-bbbb", "s4-aaaa"})
	if got := list(t, s, session.ListOptions{Workdir: "/nowhere"}); len(got) != 0 {
		t.Errorf("List /nowhere = %v", got)
	}
	// A new message makes a session the most recent.
	appendMsg(t, s, "s1-aaaa", llm.Message{Role: llm.RoleUser, Content: "again"})
	deepEqual(t, "List /a after append", list(t, s, session.ListOptions{Workdir: "/a"}), []string{"s1-aaaa", "s4-aaaa", "s3-aaaa"})
}

func testGetByPrefix(t *testing.T, s session.Store) {
	ctx := context.Background()
	for _, id := range []string{"abcd0001", "abcd0002", "abce0001", "ffff0001"} {
		create(t, s, session.Session{ID: id, Title: id})
	}
	if got := get(t, s, "ffff").ID; got != "ffff0001" {
		t.Errorf(`Get("ffff") = %s`, got)
	}
	if got := get(t, s, "abcd0002").ID; got != "abcd0002" {
		t.Errorf(`Get("abcd0002") = %s`, got)
	}
	if got := get(t, s, "abce").Title; got != "abce0001" {
		t.Errorf(`Get("abce").Title = %s`, got)
	}
	_, err := s.Get(ctx, "abcd")
	if !errors.Is(err, session.ErrAmbiguous) {
		t.Errorf(`Get("abcd") err = %v, want ErrAmbiguous`, err)
	}
	_, err = s.Get(ctx, "abc")
	if err == nil {
		t.Errorf(`Get("abc") (shorter than %d) succeeded`, session.MinPrefixLen)
	}
	_, err = s.Get(ctx, "fff")
	wantNotFound(t, `Get("fff") (too short a prefix)`, err)
	_, err = s.Get(ctx, "zzzz")
	wantNotFound(t, `Get("zzzz")`, err)
	_, err = s.Get(ctx, "ffff00011")
	wantNotFound(t, `Get("ffff00011")`, err)
	// An exact id wins even when it is a prefix of another id.
	create(t, s, session.Session{ID: "abcd"})
	if got := get(t, s, "abcd").ID; got != "abcd" {
		t.Errorf(`Get("abcd") with an exact match = %s`, got)
	}
}

func testDeleteCascades(t *testing.T, s session.Store) {
	ctx := context.Background()
	keep := create(t, s, session.Session{ID: "keep-0001"})
	gone := create(t, s, session.Session{ID: "gone-0001"})
	for _, id := range []string{keep.ID, gone.ID} {
		appendMsg(t, s, id, conversation()...)
		if err := s.SaveState(ctx, id, fullState()); err != nil {
			t.Fatalf("SaveState: %v", err)
		}
	}
	if err := s.Delete(ctx, gone.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := s.Get(ctx, gone.ID)
	wantNotFound(t, "Get after Delete", err)
	wantNotFound(t, "second Delete", s.Delete(ctx, gone.ID))
	deepEqual(t, "ids after Delete", list(t, s, session.ListOptions{}), []string{keep.ID})

	// A session re-created under the deleted id starts empty: nothing of
	// the old one survived.
	create(t, s, session.Session{ID: gone.ID})
	if got := messages(t, s, gone.ID); len(got) != 0 {
		t.Errorf("re-created session has %d old messages", len(got))
	}
	st, err := s.LoadState(ctx, gone.ID)
	if err != nil {
		t.Fatalf("LoadState: %v", err)
	}
	deepEqual(t, "re-created session's state", st, session.State{Todos: []plan.TodoItem{}})
	// The other session is untouched.
	deepEqual(t, "kept messages", messages(t, s, keep.ID), conversation())
	st, err = s.LoadState(ctx, keep.ID)
	if err != nil {
		t.Fatalf("LoadState: %v", err)
	}
	deepEqual(t, "kept state", st, fullState())
}
