package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
	"github.com/harness9/harness9/session/storetest"
)

func openTest(t testing.TB, path string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(path, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func TestStoreSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) session.Store {
		return openTest(t, filepath.Join(t.TempDir(), "harness9.db"))
	})
}

func TestOpenCreatesDirsAndSetsPragmas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "er", "odd ?#% name", "harness9.db")
	s := openTest(t, path)
	defer func() { _ = s.Close() }()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("database file not at %s: %v", path, err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("database file mode = %v, want 0600", perm)
	}
	ctx := context.Background()
	// Hold several pooled connections at once: each must have the settings.
	for i := range 3 {
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = c.Close() }()
		for pragma, want := range map[string]string{
			"journal_mode": "wal", "foreign_keys": "1", "synchronous": "1", "busy_timeout": "5000",
			"mmap_size": "0",
		} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
				t.Fatalf("PRAGMA %s: %v", pragma, err)
			}
			if got != want {
				t.Errorf("connection %d: PRAGMA %s = %s, want %s", i, pragma, got, want)
			}
		}
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open(""); err == nil {
		t.Error("Open(\"\") succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(file, "harness9.db")); err == nil {
		t.Error("Open under a regular file succeeded")
	}
	notDB := filepath.Join(t.TempDir(), "not.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(notDB)
	if err == nil || !strings.Contains(err.Error(), notDB) {
		t.Errorf("Open(garbage file) err = %v, want an error naming the file", err)
	}
}

func TestMigrationsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	s := openTest(t, path)
	sess := session.Session{Title: "kept"}
	if err := s.Create(context.Background(), &sess); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	for range 2 {
		s = openTest(t, path)
		var v int
		if err := s.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v != SchemaVersion() || v < 1 {
			t.Errorf("user_version = %d, want %d", v, SchemaVersion())
		}
		got, err := s.Get(context.Background(), sess.ID)
		if err != nil || got.Title != "kept" {
			t.Errorf("after reopen: Get = %+v, %v", got, err)
		}
		_ = s.Close()
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	s := openTest(t, path)
	if _, err := s.db.Exec("PRAGMA user_version = 999"); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	_, err := Open(path)
	if err == nil {
		t.Fatal("Open of a database from a newer version succeeded")
	}
	for _, want := range []string{"999", "newer", path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestLoadMigrationsChecksSequence(t *testing.T) {
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		if m.Version != i+1 || m.SQL == "" {
			t.Errorf("migration %d = %+v", i, m)
		}
	}
}

func TestResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	ctx := context.Background()
	s := openTest(t, path)
	sess := session.Session{Workdir: "/w", Model: "openai/gpt"}
	if err := s.Create(ctx, &sess); err != nil {
		t.Fatal(err)
	}
	var want []llm.Message
	for i := range 50 {
		m := llm.Message{Role: llm.RoleUser, Content: strings.Repeat("x", i)}
		if i%2 == 1 {
			m = llm.Message{Role: llm.RoleAssistant, Content: "ok", ToolCalls: []llm.ToolCall{{ID: "c", Name: "bash", Input: []byte(`{"command":"ls"}`)}}}
		}
		want = append(want, m)
		if err := s.AppendMessage(ctx, sess.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	st := session.State{Evidence: 4}
	if err := s.SaveState(ctx, sess.ID, st); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openTest(t, path)
	defer func() { _ = s.Close() }()
	got, err := s.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history after reopen differs:\n got %v\nwant %v", got, want)
	}
	gotSt, err := s.LoadState(ctx, sess.ID)
	if err != nil || gotSt.Evidence != 4 {
		t.Errorf("state after reopen = %+v, %v", gotSt, err)
	}
	list, err := s.List(ctx, session.ListOptions{Workdir: "/w"})
	if err != nil || len(list) != 1 || list[0].ID != sess.ID || list[0].MessageCount != 50 {
		t.Errorf("List after reopen = %+v, %v", list, err)
	}
}

func TestClockAndIDInjected(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 123, time.UTC)
	n := 0
	s := openTest(t, filepath.Join(t.TempDir(), "h.db"),
		WithClock(func() time.Time { return now }),
		WithIDGenerator(func() string { n++; return "id-" + string(rune('a'+n)) }))
	defer func() { _ = s.Close() }()
	ctx := context.Background()
	sess := session.Session{}
	if err := s.Create(ctx, &sess); err != nil {
		t.Fatal(err)
	}
	if sess.ID != "id-b" || !sess.Created.Equal(now) {
		t.Errorf("Create = %+v", sess)
	}
	now = now.Add(time.Minute)
	if err := s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Updated.Equal(now) || !got.Created.Equal(now.Add(-time.Minute)) {
		t.Errorf("times = %v, %v", got.Created, got.Updated)
	}
}

func TestErrorsNameTheID(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "h.db"))
	defer func() { _ = s.Close() }()
	ctx := context.Background()
	for _, id := range []string{"aaaa1111", "aaaa2222"} {
		if err := s.Create(ctx, &session.Session{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Get(ctx, "aaaa")
	if !errors.Is(err, session.ErrAmbiguous) || !strings.Contains(err.Error(), "aaaa1111") || !strings.Contains(err.Error(), "aaaa2222") {
		t.Errorf("ambiguous error = %v", err)
	}
	err = s.AppendMessage(ctx, "nope1234", llm.Message{})
	if !errors.Is(err, session.ErrNotFound) || !strings.Contains(err.Error(), "nope1234") {
		t.Errorf("not-found error = %v", err)
	}
}

func TestDeleteRemovesRows(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "h.db"))
	defer func() { _ = s.Close() }()
	ctx := context.Background()
	sess := session.Session{}
	if err := s.Create(ctx, &sess); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Content: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SaveState(ctx, sess.ID, session.State{Evidence: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"sessions", "messages", "session_state"} {
		var n int
		if err := s.db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s has %d rows after Delete", table, n)
		}
	}
}

func TestStoredBodyIsReadableJSON(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "h.db"))
	defer func() { _ = s.Close() }()
	ctx := context.Background()
	sess := session.Session{}
	if err := s.Create(ctx, &sess); err != nil {
		t.Fatal(err)
	}
	m := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Input: []byte(`{"path":"a<b"}`)}}}
	if err := s.AppendMessage(ctx, sess.ID, m); err != nil {
		t.Fatal(err)
	}
	var role, path, typ string
	var seq int
	err := s.db.QueryRow(`SELECT role, seq, typeof(body), json_extract(body, '$.tool_calls[0].input.path') FROM messages`).Scan(&role, &seq, &typ, &path)
	if err != nil {
		t.Fatal(err)
	}
	if role != "assistant" || seq != 1 || typ != "text" || path != "a<b" {
		t.Errorf("row = role %q seq %d body type %q path %q", role, seq, typ, path)
	}
}

func TestCodecEdgeCases(t *testing.T) {
	for _, in := range []string{"", "null", " ", `{"a":1}`, `{"a": 1}`, `[1,2]`, `"s"`, `{"x":"<&>"}`, `{bad`, `{"a":"\u00e9"}`, "  {\"a\" :\n[ ] }\t"} {
		var input []byte
		if in != "" {
			input = []byte(in)
		}
		m := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "t", Input: input}}}
		body, err := codec.EncodeMessage(m)
		if err != nil {
			t.Errorf("encode %q: %v", in, err)
			continue
		}
		got, _, err := codec.DecodeMessage(body)
		if err != nil {
			t.Errorf("decode %q: %v", in, err)
			continue
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("input %q round-trips as %q (body %s)", in, got.ToolCalls[0].Input, body)
		}
	}
}

func TestGetIgnoresTheCaseOfAGeneratedID(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "h.db"))
	defer s.Close()
	ctx := context.Background()
	sess := &session.Session{Workdir: "/w"}
	if err := s.Create(ctx, sess); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{strings.ToUpper(sess.ID), strings.ToUpper(sess.ID[:6])} {
		got, err := s.Get(ctx, id)
		if err != nil || got.ID != sess.ID {
			t.Errorf("Get(%q) = %q, %v; want %q", id, got.ID, err, sess.ID)
		}
	}
	if _, err := s.Get(ctx, "ZZZZZZ"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Get(ZZZZZZ) err = %v, want ErrNotFound", err)
	}
}

// Images are stored once by content, out of the message JSON, and deleted
// with the last session that uses them.
func TestImagesStoredOnceAndDeleted(t *testing.T) {
	s := openTest(t, filepath.Join(t.TempDir(), "h.db"))
	defer s.Close()
	ctx := context.Background()
	pic := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 1000)
	var ids []string
	for range 2 {
		sess := session.Session{Workdir: "/w"}
		if err := s.Create(ctx, &sess); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, sess.ID)
		for range 2 {
			if err := s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Images: []llm.Image{{MediaType: "image/png", Data: pic}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	count := func(q string) int {
		var n int
		if err := s.db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(`SELECT count(*) FROM images`); n != 1 {
		t.Fatalf("%d image rows for one picture", n)
	}
	if n := count(`SELECT max(length(body)) FROM messages`); n > 300 {
		t.Fatalf("a message body is %d bytes: the picture is inline", n)
	}
	_ = s.Delete(ctx, ids[0])
	if n := count(`SELECT count(*) FROM images`); n != 1 {
		t.Fatal("a picture still used by another session was deleted")
	}
	_ = s.Delete(ctx, ids[1])
	if n := count(`SELECT count(*) FROM images`); n != 0 {
		t.Fatal("a picture outlived every session that used it")
	}
}

// TestTruncatedWhileOpen cuts the database file short under an open store,
// between its transactions, as a careless tool would. The listings after
// it may fail or come from pages SQLite still holds, but the process
// lives: with PRAGMA mmap_size on, SQLite read the pages past the new end
// through its old map, and SIGBUS ended the test's process.
func TestTruncatedWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "harness9.db")
	s := openTest(t, path)
	defer func() { _ = s.Close() }()
	ctx := context.Background()
	for i := range 300 {
		sess := session.Session{Workdir: "/w", Title: strings.Repeat("a long title to fill pages ", 20) + fmt.Sprint(i)}
		if err := s.Create(ctx, &sess); err != nil {
			t.Fatal(err)
		}
	}
	if list, err := s.ListSummaries(ctx, session.ListOptions{}); err != nil || len(list) != 300 {
		t.Fatalf("ListSummaries = %d sessions, %v", len(list), err)
	}
	// Move everything from the WAL into the file, then cut the file.
	if _, err := s.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 64<<10 {
		t.Fatalf("database is %d bytes; the test needs more pages than one fault-around", fi.Size())
	}
	if err := os.Truncate(path, fi.Size()/4); err != nil {
		t.Fatal(err)
	}
	for range 3 { // every pooled connection had the old size mapped
		if list, err := s.ListSummaries(ctx, session.ListOptions{}); err == nil && len(list) != 300 {
			t.Fatalf("listing a truncated database: %d sessions and no error", len(list))
		}
	}
}

// TestMigrationFillsInSummaries saves sessions, messages and states with
// the schema before the listing columns (version 4), then opens the file:
// the migration fills each session's status, todo counts and message count
// in from what was saved, as planning.Progress counts them, and appending
// goes on from the right sequence number.
func TestMigrationFillsInSummaries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "harness9.db")
	ctx := context.Background()
	db, err := sql.Open("sqlite", dsn(path, DefaultBusyTimeout))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := loadMigrations(migrationFS)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:4] {
		if err := apply(ctx, db, m); err != nil {
			t.Fatal(err)
		}
	}
	states := storetest.SummaryStates()
	for i := range len(states) + 1 { // the last session saved no state
		id := fmt.Sprintf("sess%d", i)
		if _, err := db.ExecContext(ctx, `INSERT INTO sessions (id, created, updated, workdir, model, title, mode)
			VALUES (?, 1, ?, '/w', 'm', 't', 'default')`, id, 100-i); err != nil {
			t.Fatal(err)
		}
		for seq := 1; seq <= i; seq++ {
			body, _ := codec.EncodeMessage(llm.Message{Role: llm.RoleUser, Content: fmt.Sprint(seq)})
			if _, err := db.ExecContext(ctx, `INSERT INTO messages (session_id, seq, role, created, body) VALUES (?, ?, 'user', 1, ?)`,
				id, seq, string(body)); err != nil {
				t.Fatal(err)
			}
		}
		if i < len(states) {
			body, err := codec.EncodeState(states[i])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, `INSERT INTO session_state (session_id, updated, state) VALUES (?, 1, ?)`, id, string(body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := openTest(t, path)
	defer func() { _ = s.Close() }()
	list, err := s.ListSummaries(ctx, session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(states)+1 {
		t.Fatalf("listed %d sessions, want %d", len(list), len(states)+1)
	}
	ids := make([]string, len(states)+1)
	for i := range ids {
		ids[i] = fmt.Sprintf("sess%d", i)
		if list[i].MessageCount != i {
			t.Errorf("%s lists %d messages, want %d", list[i].ID, list[i].MessageCount, i)
		}
	}
	storetest.CheckSummaries(t, list, ids, states)
	if err := s.AppendMessage(ctx, "sess3", llm.Message{Role: llm.RoleUser, Content: "after"}); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.Messages(ctx, "sess3")
	if err != nil || len(msgs) != 4 || msgs[3].Content != "after" || msgs[2].Content != "3" {
		t.Fatalf("messages after the migration = %+v, %v; want 1, 2, 3, after", msgs, err)
	}
}
