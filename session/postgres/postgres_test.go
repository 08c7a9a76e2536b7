package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/harness9/harness9/internal/lib/pgtest"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning/plan"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/internal/codec"
	"github.com/harness9/harness9/session/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func openTest(t testing.TB, dsn string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestStoreSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) session.Store {
		s, err := Open(context.Background(), pgtest.NewDatabase(t))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		return s
	})
}

// TestConcurrentOpenMigratesOnce opens a fresh database from several
// pools at once, as hosts starting together would: every Open succeeds and
// each migration is recorded once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			s, err := Open(context.Background(), dsn)
			if err == nil {
				err = s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
		}
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var rows, maxV int
	if err := conn.QueryRow(context.Background(), `SELECT count(*), max(version) FROM harness9.schema_migrations`).Scan(&rows, &maxV); err != nil {
		t.Fatal(err)
	}
	if rows != SchemaVersion() || maxV != SchemaVersion() {
		t.Errorf("schema_migrations has %d rows up to %d; want %d", rows, maxV, SchemaVersion())
	}
}

// TestOpenRefusesNewerSchema: a database migrated by a newer harness9 is
// left alone, with a message that says to upgrade.
func TestOpenRefusesNewerSchema(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	s := openTest(t, dsn)
	if _, err := s.pool.Exec(context.Background(), `INSERT INTO harness9.schema_migrations VALUES ($1, 'future.sql', 0)`, SchemaVersion()+1); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), dsn)
	if err == nil || !strings.Contains(err.Error(), "upgrade harness9") {
		t.Fatalf("Open of a newer schema: %v; want a refusal naming the upgrade", err)
	}
	if _, err := Check(context.Background(), dsn); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("Check of a newer schema: %v", err)
	}
}

// TestOpenRefusesForeignSchema: a schema named harness9 that harness9 did
// not make is not written into.
func TestOpenRefusesForeignSchema(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `CREATE SCHEMA harness9; CREATE TABLE harness9.theirs (x int)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), dsn); !errors.Is(err, ErrForeign) {
		t.Fatalf("Open = %v, want ErrForeign", err)
	}
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_tables WHERE schemaname = 'harness9'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("the foreign schema has %d tables (%v); want it untouched with 1", n, err)
	}
}

func TestCheck(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	r, err := Check(context.Background(), dsn)
	if err != nil || r.SchemaVersion != 0 || r.Server == "" {
		t.Fatalf("Check of an empty database = %+v, %v", r, err)
	}
	s := openTest(t, dsn)
	for range 3 {
		if err := s.Create(context.Background(), &session.Session{}); err != nil {
			t.Fatal(err)
		}
	}
	r, err = Check(context.Background(), dsn)
	if err != nil || r.SchemaVersion != SchemaVersion() || r.Sessions != 3 {
		t.Errorf("Check = %+v, %v; want schema %d, 3 sessions", r, err, SchemaVersion())
	}
}

// TestTwoStoresShareOneDatabase: two pools (two hosts) append to one
// session at once; every message lands once, each writer's in its order,
// numbered without gaps.
func TestTwoStoresShareOneDatabase(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	a, b := openTest(t, dsn), openTest(t, dsn)
	ctx := context.Background()
	sess := session.Session{Workdir: "/w"}
	if err := a.Create(ctx, &sess); err != nil {
		t.Fatal(err)
	}
	const each = 40
	var wg sync.WaitGroup
	for w, s := range []*Store{a, b, a, b} {
		wg.Go(func() {
			for i := range each {
				if err := s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("w%d-%03d", w, i)}); err != nil {
					t.Errorf("append: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := b.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4*each {
		t.Fatalf("%d messages, want %d", len(got), 4*each)
	}
	next := map[int]int{}
	for _, m := range got {
		var w, i int
		if _, err := fmt.Sscanf(m.Content, "w%d-%d", &w, &i); err != nil || i != next[w] {
			t.Fatalf("message %q out of order (want w%d-%03d)", m.Content, w, next[w])
		}
		next[w]++
	}
	if g, err := a.Get(ctx, sess.ID); err != nil || g.MessageCount != 4*each {
		t.Errorf("MessageCount = %d, %v", g.MessageCount, err)
	}
	var maxSeq, rows int
	if err := a.pool.QueryRow(ctx, `SELECT max(seq), count(*) FROM harness9.messages WHERE session_id = $1`, sess.ID).Scan(&maxSeq, &rows); err != nil || maxSeq != rows {
		t.Errorf("seq runs to %d over %d rows (%v): gaps", maxSeq, rows, err)
	}
}

// TestSearchPathIsolation: tables are schema-qualified, so a user's own
// "sessions" table in public is neither read nor written.
func TestSearchPathIsolation(t *testing.T) {
	dsn := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `CREATE TABLE public.sessions (id text PRIMARY KEY, secret text);
		INSERT INTO public.sessions VALUES ('abcd0001', 'theirs')`); err != nil {
		t.Fatal(err)
	}
	s := openTest(t, dsn)
	if _, err := s.Get(context.Background(), "abcd0001"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Get of the user's own row = %v, want not found", err)
	}
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM public.sessions`).Scan(&n); err != nil || n != 1 {
		t.Errorf("public.sessions has %d rows (%v)", n, err)
	}
}

// TestMigrationFillsInSummaries saves sessions and states with the schema
// before the listing columns (version 3), then opens the database: the
// migration fills each session's status and todo counts in from its saved
// state, as plan.Progress counts them (a plan holding a NUL included,
// which jsonb would refuse).
func TestMigrationFillsInSummaries(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.NewDatabase(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, bootstrap); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:3] {
		if _, err := conn.Exec(ctx, m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO harness9.schema_migrations VALUES ($1, $2, 0)`, m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	states := append(storetest.SummaryStates(), session.State{Status: plan.StatusExecuting,
		Plan:  &plan.Plan{Title: "nul", Content: "a\x00b"},
		Todos: []plan.TodoItem{{ID: "1", Content: "x\x00", Status: plan.TodoCompleted}}})
	for i := range len(states) + 1 { // the last session saved no state
		id := fmt.Sprintf("sess%d", i)
		if _, err := conn.Exec(ctx, `INSERT INTO harness9.sessions (id, created, updated, workdir, model, title, mode)
			VALUES ($1, 1, $2, '/w', 'm', 't', 'default')`, id, 100-i); err != nil {
			t.Fatal(err)
		}
		if i < len(states) {
			body, err := codec.EncodeState(states[i])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, `INSERT INTO harness9.session_state (session_id, updated, state) VALUES ($1, 1, $2)`, id, string(body)); err != nil {
				t.Fatal(err)
			}
		}
	}

	s := openTest(t, dsn)
	list, err := s.ListSummaries(ctx, session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(states)+1)
	for i := range ids {
		ids[i] = fmt.Sprintf("sess%d", i)
	}
	storetest.CheckSummaries(t, list, ids, states)
}
