package sessionstate_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/harness9/harness9/agent/internal/sessionstate"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
)

// openStore opens a real SQLite store in the test's temp dir.
func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// started returns a state whose session exists in store.
func started(t *testing.T, store session.Store, opts ...sessionstate.Option) *sessionstate.State {
	t.Helper()
	s := sessionstate.New(store, opts...)
	if err := s.Ensure(context.Background(), session.Session{Workdir: t.TempDir(), Title: "test"}, nil); err != nil {
		t.Fatal(err)
	}
	if s.SessionID() == "" {
		t.Fatal("Ensure left the state without a session id")
	}
	return s
}

// reopened loads the state's session into a fresh State, as another
// process resuming it would.
func reopened(t *testing.T, store session.Store, id string, opts ...sessionstate.Option) *sessionstate.State {
	t.Helper()
	s := sessionstate.New(store, opts...)
	if err := s.Load(context.Background(), id, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

func msg(role llm.Role, text string) llm.Message { return llm.Message{Role: role, Content: text} }

// awaiting brings the state to a submitted plan, saved, the way a Plan
// run does: start, the plan tools write the todos, submit, finish.
func awaiting(t *testing.T, s *sessionstate.State, plan planning.Plan) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.StartRun(ctx); err != nil {
		t.Fatal(err)
	}
	var todos []planning.TodoItem
	for i, step := range plan.Steps {
		todos = append(todos, planning.TodoItem{ID: fmt.Sprint(i + 1), Content: step, Status: planning.TodoPending})
	}
	s.TodoStore().Write(todos)
	if err := s.Submit(plan); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.Status(); got != planning.StatusAwaitingApproval {
		t.Fatalf("status after a submitted plan = %s, want awaiting_approval", got)
	}
}

func TestAppendsPersistInOrder(t *testing.T) {
	store := openStore(t)
	s := started(t, store)
	ctx := context.Background()
	// Appends race from several goroutines: whatever order they land in,
	// the store holds the same order as memory.
	const writers, each = 6, 15
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := s.Append(ctx, msg(llm.RoleUser, fmt.Sprintf("w%d-%d", w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	mem := s.History()
	if len(mem) != writers*each || s.Len() != writers*each {
		t.Fatalf("history has %d messages (Len %d), want %d", len(mem), s.Len(), writers*each)
	}
	stored, err := store.Messages(ctx, s.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	if !sameContents(mem, stored) {
		t.Fatalf("memory and store disagree on the order:\nmemory %v\nstore  %v", contents(mem), contents(stored))
	}
	// Each writer's own messages keep their order.
	next := make([]int, writers)
	for _, m := range mem {
		var w, i int
		if _, err := fmt.Sscanf(m.Content, "w%d-%d", &w, &i); err != nil || i != next[w] {
			t.Fatalf("message %q out of its writer's order", m.Content)
		}
		next[w]++
	}
	if got := reopened(t, store, s.SessionID()).History(); !sameContents(got, mem) {
		t.Fatalf("a reload sees %v, want %v", contents(got), contents(mem))
	}
}

func TestAppendThatCannotBeStoredIsNotKept(t *testing.T) {
	store := &failingAppends{Store: openStore(t)}
	s := started(t, store)
	ctx := context.Background()
	if err := s.Append(ctx, msg(llm.RoleUser, "kept")); err != nil {
		t.Fatal(err)
	}
	store.fail.Store(true)
	err := s.Append(ctx, msg(llm.RoleAssistant, "lost"))
	if err == nil || !errors.Is(err, errDiskFull) {
		t.Fatalf("Append = %v, want the store's error", err)
	}
	if got := contents(s.History()); !reflect.DeepEqual(got, []string{"kept"}) {
		t.Fatalf("history after a failed append = %v, want only what was stored", got)
	}
}

var errDiskFull = errors.New("disk full")

type failingAppends struct {
	session.Store
	fail atomic.Bool
}

func (f *failingAppends) AppendMessage(ctx context.Context, id string, m llm.Message) error {
	if f.fail.Load() {
		return errDiskFull
	}
	return f.Store.AppendMessage(ctx, id, m)
}

// gatedSaves holds SaveState while armed, and notes any LoadState that
// runs while a SaveState is in progress.
type gatedSaves struct {
	session.Store
	armed    atomic.Bool
	entered  chan struct{}
	release  chan struct{}
	saving   atomic.Int32
	overlaps atomic.Int32
}

func (g *gatedSaves) SaveState(ctx context.Context, id string, st session.State) error {
	g.saving.Add(1)
	defer g.saving.Add(-1)
	if g.armed.CompareAndSwap(true, false) {
		close(g.entered)
		<-g.release
	}
	return g.Store.SaveState(ctx, id, st)
}

func (g *gatedSaves) LoadState(ctx context.Context, id string) (session.State, error) {
	if g.saving.Load() > 0 {
		g.overlaps.Add(1)
	}
	return g.Store.LoadState(ctx, id)
}

func TestTransitionAndItsWriteAreOneStepForReload(t *testing.T) {
	store := &gatedSaves{Store: openStore(t), entered: make(chan struct{}), release: make(chan struct{})}
	s := started(t, store)
	ctx := context.Background()
	awaiting(t, s, planning.Plan{Title: "p", Steps: []string{"one", "two"}})

	store.armed.Store(true)
	approved := make(chan error, 1)
	go func() { approved <- s.Approve(ctx, planning.ModeAutoEdit, "/tasks/p") }()
	<-store.entered // the approval is being written
	reloaded := make(chan struct{})
	go func() { s.Reload(ctx); close(reloaded) }()
	// A reload that does not wait for the write would read the old state
	// now and finish; give it the chance before letting the write go.
	select {
	case <-reloaded:
	case <-time.After(200 * time.Millisecond):
	}
	close(store.release)
	if err := <-approved; err != nil {
		t.Fatal(err)
	}
	<-reloaded

	if n := store.overlaps.Load(); n != 0 {
		t.Fatalf("Reload read the store %d time(s) while an approval was being written", n)
	}
	if got := s.Status(); got != planning.StatusExecuting {
		t.Fatalf("status after approve and a concurrent reload = %s, want executing", got)
	}
	if got := s.TaskDir(); got != "/tasks/p" {
		t.Fatalf("task dir = %q, want /tasks/p", got)
	}
	other := reopened(t, store, s.SessionID())
	if other.Status() != planning.StatusExecuting || other.Mode() != planning.ModeAutoEdit {
		t.Fatalf("stored: status %s, mode %s; want executing in auto-edit", other.Status(), other.Mode())
	}
}

func TestLoadRestoresWhatWasSaved(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	s := started(t, store, sessionstate.WithMode(planning.ModePlan))
	want := []llm.Message{
		msg(llm.RoleUser, "plan it"),
		{Role: llm.RoleAssistant, Content: "looking", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Input: []byte(`{"path":"a"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Name: "read_file", Content: "1\tpackage a"},
		msg(llm.RoleAssistant, "here is the plan"),
	}
	for _, m := range want {
		if err := s.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	plan := planning.Plan{Title: "Fix it", Content: "# Fix it", Steps: []string{"edit", "test"}}
	awaiting(t, s, plan)
	planFile, _, title := s.PlanTargets(func(id string) string { return "/plans/" + id[:8] + ".md" })
	if title != "Fix it" || planFile == "" {
		t.Fatalf("PlanTargets = %q, %q", planFile, title)
	}
	if err := s.Approve(ctx, planning.ModeAutoEdit, "/tasks/fix-it"); err != nil {
		t.Fatal(err)
	}
	s.TodoStore().Write([]planning.TodoItem{{ID: "1", Content: "edit", Status: planning.TodoInProgress}, {ID: "2", Content: "test", Status: planning.TodoPending}})
	s.RecordEvidence()
	s.RecordEvidence()
	s.Save(ctx)

	r := reopened(t, store, s.SessionID())
	checks := []struct {
		what      string
		got, want any
	}{
		{"session id", r.SessionID(), s.SessionID()},
		{"mode", r.Mode(), planning.ModeAutoEdit},
		{"status", r.Status(), planning.StatusExecuting},
		{"next step", r.NextStep(), planning.StepContinue},
		{"plan", r.Plan(), &plan},
		{"task dir", r.TaskDir(), "/tasks/fix-it"},
		{"plan file", r.PlanFile(), planFile},
		{"todos", r.Todos(), s.Todos()},
		{"evidence", r.Evidence().Count(), 2},
		{"history", r.History(), want},
		{"len", r.Len(), len(want)},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s after a reload = %#v, want %#v", c.what, c.got, c.want)
		}
	}
	// A mode the program chose wins over the stored one.
	if got := reopened(t, store, s.SessionID(), sessionstate.WithMode(planning.ModeDefault)).Mode(); got != planning.ModeDefault {
		t.Errorf("mode with WithMode = %s, want default", got)
	}
}

func TestRunningIsNotStored(t *testing.T) {
	store := openStore(t)
	s := started(t, store)
	if _, err := s.StartRun(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s.Status() != planning.StatusRunning {
		t.Fatalf("status in a run = %s", s.Status())
	}
	// A process killed now leaves the status the run started from.
	if got := reopened(t, store, s.SessionID()).Status(); got != planning.StatusIdle {
		t.Fatalf("status a resume sees = %s, want idle", got)
	}
}

func TestLeanLoadReadsTheCompactedPartOnlyWhenAsked(t *testing.T) {
	store := &countingReads{Store: openStore(t)}
	ctx := context.Background()
	s := started(t, store)
	var want []llm.Message
	for i := range 6 {
		m := msg(llm.RoleUser, fmt.Sprint("m", i))
		if i%2 == 1 {
			m.Role = llm.RoleAssistant
		}
		want = append(want, m)
		if err := s.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	s.TodoStore().Write([]planning.TodoItem{{ID: "1", Content: "keep going", Status: planning.TodoPending}})
	s.Compacted(ctx, session.Compaction{Summary: "## Goal\nearlier work", Covered: 4, BeforeTokens: 900, AfterTokens: 100})

	store.whole.Store(0)
	r := reopened(t, store, s.SessionID())
	if n := store.whole.Load(); n != 0 {
		t.Fatalf("a compacted session's load read the whole history %d time(s)", n)
	}
	eff := r.Effective()
	if len(eff) != 3 || eff[1].Content != "m4" || eff[2].Content != "m5" {
		t.Fatalf("effective history = %v, want the summary then m4, m5", contents(eff))
	}
	if c := r.Compaction(); c == nil || c.Covered != 4 || c.Summary != "## Goal\nearlier work" {
		t.Fatalf("compaction after a reload = %+v", c)
	}
	if got := r.History(); !reflect.DeepEqual(got, want) {
		t.Fatalf("History after a lean load = %v, want %v", contents(got), contents(want))
	}
	if r.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", r.Len(), len(want))
	}
}

type countingReads struct {
	session.Store
	whole atomic.Int32
}

func (c *countingReads) Messages(ctx context.Context, id string) ([]llm.Message, error) {
	c.whole.Add(1)
	return c.Store.Messages(ctx, id)
}

func TestEnsureAndLoadRefusals(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	taken := errors.New("busy: pid 42")
	s := sessionstate.New(store)
	err := s.Ensure(ctx, session.Session{Title: "x"}, func(context.Context, string) error { return taken })
	if !errors.Is(err, taken) || s.SessionID() != "" {
		t.Fatalf("Ensure with a refused claim = %v, session %q; want the claim's error and no session", err, s.SessionID())
	}
	if err := s.Append(ctx, msg(llm.RoleUser, "hi")); err != nil {
		t.Fatal(err)
	}

	src := started(t, store)
	if err := src.Append(ctx, msg(llm.RoleUser, "secret history")); err != nil {
		t.Fatal(err)
	}
	other := errors.New("another workdir")
	l := sessionstate.New(store)
	if err := l.Load(ctx, src.SessionID(), func(context.Context, session.Session) error { return other }); err != other {
		t.Fatalf("Load with a refusing admit = %v, want its error as it is", err)
	}
	if l.SessionID() != "" || l.Len() != 0 {
		t.Fatalf("a refused Load kept session %q and %d messages", l.SessionID(), l.Len())
	}
}

func TestEnsureOnAStartedSessionStoresTheMode(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	s := started(t, store)
	s.SetMode(planning.ModePlan)
	if err := s.Ensure(ctx, session.Session{Title: "ignored"}, nil); err != nil {
		t.Fatal(err)
	}
	row, err := store.Get(ctx, s.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	if row.Mode != planning.ModePlan || row.Title != "test" {
		t.Fatalf("row after Ensure = mode %s, title %q; want plan, test", row.Mode, row.Title)
	}
}

func TestTransitionsRefusedLeaveTheStoreAlone(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	s := started(t, store)
	s.TodoStore().Write([]planning.TodoItem{{ID: "1", Content: "x", Status: planning.TodoPending}})
	s.Save(ctx)
	if _, _, ok := s.Approvable(); ok {
		t.Fatal("Approvable with no plan")
	}
	if st, err := s.Cancel(ctx); err == nil || st != planning.StatusIdle {
		t.Fatalf("Cancel when idle = %s, %v; want a refusal", st, err)
	}
	if _, err := s.Continue(ctx); !errors.Is(err, planning.ErrTransition) {
		t.Fatalf("Continue when idle = %v, want a transition error", err)
	}
	if err := s.Complete(ctx, planning.ExecCompleted); !errors.Is(err, planning.ErrTransition) {
		t.Fatalf("Complete when idle = %v, want a transition error", err)
	}
	if got := reopened(t, store, s.SessionID()).Todos(); len(got) != 1 {
		t.Fatalf("a refused cancel changed the stored todos to %v", got)
	}

	awaiting(t, s, planning.Plan{Title: "p", Steps: []string{"a"}})
	if plan, _, ok := s.Approvable(); !ok || plan.Title != "p" {
		t.Fatalf("Approvable = %+v, %v", plan, ok)
	}
	if err := s.Approve(ctx, planning.ModePlan, ""); err == nil {
		t.Fatal("approving for Plan mode succeeded")
	}
	if st, err := s.Cancel(ctx); err != nil || st != planning.StatusAwaitingApproval {
		t.Fatalf("Cancel = %s, %v", st, err)
	}
	r := reopened(t, store, s.SessionID())
	if r.Status() != planning.StatusIdle || r.Plan() != nil || len(r.Todos()) != 0 {
		t.Fatalf("stored after cancel: %s, plan %v, todos %v", r.Status(), r.Plan(), r.Todos())
	}
}

func TestUsageMark(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	s := started(t, store)
	if err := s.Append(ctx, msg(llm.RoleUser, "hello there")); err != nil {
		t.Fatal(err)
	}
	estimate := s.RecordUsage(llm.Usage{}, "system")
	if estimate <= 0 {
		t.Fatalf("estimate without a provider figure = %d", estimate)
	}
	if got := s.RecordUsage(llm.Usage{InputTokens: 1000, OutputTokens: 20}, "system"); got != 1020 {
		t.Fatalf("context with a provider figure = %d, want 1020", got)
	}
	if err := s.Append(ctx, msg(llm.RoleAssistant, "hi")); err != nil {
		t.Fatal(err)
	}
	if got := s.ContextTokens("system", nil); got != 1020 {
		t.Fatalf("context right after the answer = %d, want the provider's 1020", got)
	}
	if err := s.Append(ctx, msg(llm.RoleUser, "and now a longer follow-up question")); err != nil {
		t.Fatal(err)
	}
	if got := s.ContextTokens("system", nil); got <= 1020 {
		t.Fatalf("context after a new message = %d, want more than 1020", got)
	}
	if sit := s.ToCompact(); len(sit.History) != 3 || sit.Summary != "" || sit.Covered != 0 || sit.Elided != 0 {
		t.Fatalf("ToCompact = %+v", sit)
	}
	s.Compacted(ctx, session.Compaction{Summary: "sum", Covered: 2, Elided: 3})
	if got := s.ContextTokens("system", nil); got >= 1020 {
		t.Fatalf("context after compaction = %d, want a fresh estimate", got)
	}
	if sit := s.ToCompact(); len(sit.History) != 3 || sit.Summary != "sum" || sit.Covered != 2 || sit.Elided != 3 {
		t.Fatalf("ToCompact after a compaction = %+v; want the summary covering 2, outputs shortened up to 3", sit)
	}

	// A figure carried from before a compaction (a step on a fresh
	// engine, after a call that failed) is not taken for the history's
	// size, even when the compaction only shortened outputs.
	s.RecordUsage(llm.Usage{InputTokens: 5000}, "system")
	if err := s.Append(ctx, msg(llm.RoleAssistant, "ok")); err != nil {
		t.Fatal(err)
	}
	before := s.Usage()
	s.Compacted(ctx, session.Compaction{Summary: "sum", Covered: 2, Elided: 4})
	s.SetUsage(before)
	if got := s.ContextTokens("system", nil); got >= 5000 {
		t.Fatalf("context after a trim, with the earlier figure carried over = %d; want a fresh estimate", got)
	}
}

// TestConcurrentAccess drives every method at once; run with -race. In
// the end the history in memory is the history in the store.
func TestConcurrentAccess(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	s := started(t, store)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	loop := func(fn func(i int)) {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
					fn(i)
				}
			}
		})
	}
	loop(func(i int) { _ = s.Append(ctx, msg(llm.RoleUser, fmt.Sprint(i))) })
	loop(func(int) {
		// A plan's life: run, submit, finish, approve, complete.
		if _, err := s.StartRun(ctx); err != nil {
			return
		}
		s.TodoStore().Write([]planning.TodoItem{{ID: "1", Content: "a", Status: planning.TodoPending}})
		_ = s.Submit(planning.Plan{Title: "t", Steps: []string{"a"}})
		_ = s.FinishRun(ctx)
		_ = s.Approve(ctx, planning.ModeDefault, "")
		_ = s.Complete(ctx, planning.ExecCompleted)
	})
	loop(func(int) { s.Reload(ctx) })
	loop(func(i int) {
		s.SetMode(planning.Mode(i % 3))
		s.SyncMode(ctx)
		s.AllowForSession(fmt.Sprint("tool", i%4))
		s.RecordEvidence()
		s.RecordUsage(llm.Usage{InputTokens: i}, "sys")
	})
	loop(func(i int) {
		_, _, _ = s.SessionID(), s.Mode(), s.Status()
		_, _, _ = s.NextStep(), s.Todos(), s.Plan()
		_, _, _ = s.TaskDir(), s.PlanFile(), s.Compaction()
		_, _ = s.Len(), s.AllowedForSession("tool1")
		_ = s.ContextTokens("sys", nil)
		_, _, _ = s.Approvable()
		s.PlanTargets(func(id string) string { return id })
		for _, m := range s.Effective() {
			_ = m.Content
		}
		s.Read(func(h []llm.Message) { _ = len(h) })
		if i%20 == 0 {
			_ = s.History()
			_ = s.ToCompact()
		}
	})
	for s.Len() < 200 {
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()
	stored, err := store.Messages(ctx, s.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	if !sameContents(s.History(), stored) {
		t.Fatal("after concurrent use the history in memory differs from the store's")
	}
}

func contents(msgs []llm.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Content
	}
	return out
}

func sameContents(a, b []llm.Message) bool { return reflect.DeepEqual(contents(a), contents(b)) }

// A compacted session's effective history grows with its history without
// being copied again (the next one shares the last one's backing array),
// and is rebuilt when the active tasks under the summary, the compaction
// or the history's array change; every version equals a fresh build.
func TestEffectiveHistoryOfACompactedSessionGrowsInPlace(t *testing.T) {
	ctx := context.Background()
	s := started(t, openStore(t))
	add := func(text string) {
		t.Helper()
		if err := s.Append(ctx, msg(llm.RoleUser, text)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		add(fmt.Sprint("m", i))
	}
	s.Compacted(ctx, session.Compaction{Summary: "## Goal\nearlier work", Covered: 4})
	first := s.Effective()
	add("m6")
	second := s.Effective()
	if len(second) != 4 || second[3].Content != "m6" || &second[0] != &first[0] {
		t.Fatalf("after one more message: %v (shared array: %v)", contents(second), &second[0] == &first[0])
	}
	if second[0].Content != first[0].Content || unsafe.StringData(second[0].Content) != unsafe.StringData(first[0].Content) {
		t.Fatal("the summary message's text was rebuilt for an unchanged summary")
	}
	s.TodoStore().Write([]planning.TodoItem{{ID: "1", Content: "new task", Status: planning.TodoPending}})
	third := s.Effective()
	if !strings.Contains(third[0].Content, "new task") {
		t.Fatalf("the summary does not show the new active task: %q", third[0].Content)
	}
	if len(first) != 3 || first[2].Content != "m5" {
		t.Fatalf("an earlier result changed: %v", contents(first))
	}
	s.Compacted(ctx, session.Compaction{Summary: "## Goal\nlater work", Covered: 6})
	fourth := s.Effective()
	if len(fourth) != 2 || !strings.HasPrefix(fourth[0].Content, "## Goal\nlater work") || fourth[1].Content != "m6" {
		t.Fatalf("after a new compaction: %v", contents(fourth))
	}
	for i := range 40 { // past the array's room: a new array, the same contents
		add(fmt.Sprint("n", i))
	}
	got := s.Effective()
	if len(got) != 42 || got[41].Content != "n39" || got[1].Content != "m6" {
		t.Fatalf("after 40 more messages: %d messages, last %q", len(got), got[len(got)-1].Content)
	}
}

// Old tool outputs a compaction shortened are sent shortened, with or
// without a summary, and so after a reload; the messages stay whole in the
// store, and messages added later are sent whole.
func TestEffectiveHistoryShortensOldOutputs(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	s := started(t, store)
	big := strings.Repeat("line of a file that was read\n", 40)
	for i := range 3 {
		id := fmt.Sprint("c", i)
		for _, m := range []llm.Message{
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Input: []byte(`{}`)}}},
			{Role: llm.RoleTool, ToolCallID: id, Name: "read_file", Content: big},
		} {
			if err := s.Append(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(s *sessionstate.State, summary bool, whole ...int) {
		t.Helper()
		eff := s.Effective()
		off := 0
		if summary {
			off = 1
			if !strings.HasPrefix(eff[0].Content, "## Goal") {
				t.Fatalf("no summary first: %q", eff[0].Content)
			}
		}
		for i, m := range eff[off:] {
			if m.Role != llm.RoleTool {
				continue
			}
			if wantWhole := slices.Contains(whole, i); (m.Content == big) != wantWhole {
				t.Fatalf("message %d sent whole: %v, want %v (%q)", i, m.Content == big, wantWhole, m.Content)
			}
		}
	}
	// Outputs shortened, no summary: the first result (index 1).
	s.Compacted(ctx, session.Compaction{Elided: 2, Count: 1})
	check(s, false, 3, 5)
	check(reopened(t, store, s.SessionID()), false, 3, 5)
	if err := s.Append(ctx, msg(llm.RoleAssistant, "done")); err != nil {
		t.Fatal(err)
	}
	check(s, false, 3, 5)
	// A summary of the first turn, and the second result shortened.
	s.Compacted(ctx, session.Compaction{Summary: "## Goal\nread files", Covered: 2, Elided: 4, Count: 2})
	check(s, true, 3)
	check(reopened(t, store, s.SessionID()), true, 3)
	s.TodoStore().Write([]planning.TodoItem{{ID: "1", Content: "port it", Status: planning.TodoPending}})
	check(s, true, 3)
	if eff := s.Effective(); !strings.HasSuffix(eff[0].Content, "[ ] port it") {
		t.Fatalf("the summary does not show the new task: %q", eff[0].Content)
	}
	for _, m := range s.History() {
		if m.Role == llm.RoleTool && m.Content != big {
			t.Fatalf("a stored result was changed: %q", m.Content)
		}
	}
}
