package agent_test

// Tests for DESIGN §2 rules that are enforced in the agent package (the run
// loop, persistence, plan files). Each one fails if its rule is broken;
// the audit that added them broke every rule in turn to check.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// lockedBuffer is a log sink safe to read while the engine may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestEvidenceGateConfigSwitch: the gate is on by default and
// WithEvidenceGate(false) turns it off.
func TestEvidenceGateConfigSwitch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    []agent.Option
		refused bool
	}{
		{"default on", nil, true},
		{"explicitly on", []agent.Option{agent.WithEvidenceGate(true)}, true},
		{"off", []agent.Option{agent.WithEvidenceGate(false)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t,
				scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "do it", planning.TodoInProgress)))},
				// No work in between: only the gate stands in the way.
				scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "do it", planning.TodoCompleted)))},
				scripted.Turn{Text: "done"},
			)
			eng := h.engine(tc.opts...)
			evs := drain(t, eng.Run(context.Background(), "go"))
			wantDone(t, evs, agent.RunCompleted)
			res := resultsOf(evs)
			if len(res) != 2 || res[0].IsError {
				t.Fatalf("results = %+v", res)
			}
			if res[1].IsError != tc.refused {
				t.Fatalf("completion with no work: refused = %v, want %v (%s)", res[1].IsError, tc.refused, res[1].Output)
			}
			if tc.refused && !strings.Contains(res[1].Output, "no evidence") {
				t.Errorf("refusal does not explain the evidence gate: %s", res[1].Output)
			}
			want := planning.TodoCompleted
			if tc.refused {
				want = planning.TodoInProgress
			}
			if got := eng.Todos()[0].Status; got != want {
				t.Errorf("status = %s, want %s", got, want)
			}
		})
	}
}

// panicOnCall wraps a scripted provider and panics on the n-th Stream call
// (1-based): a bug in the engine's own path, recovered by the loop.
type panicOnCall struct {
	*scripted.Provider
	mu sync.Mutex
	n  int
	at int
}

func (p *panicOnCall) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	p.mu.Lock()
	p.n++
	boom := p.n == p.at
	p.mu.Unlock()
	if boom {
		return func(func(llm.Chunk, error) bool) { panic("provider bug") }
	}
	return p.Provider.Stream(ctx, req)
}

// TestStateSavedOnEveryExitPath: the todos and the evidence counter are
// saved whatever ends the loop. Each run writes todos, then does real work
// (write_file), then ends one way or another. Only the deferred save
// records the evidence of that work (todo_write's own save runs before
// it), so a later process that can complete item 1 without doing anything
// proves the defer ran.
func TestStateSavedOnEveryExitPath(t *testing.T) {
	explode := tool.New("explode", "panics", func(context.Context, struct{}) (tool.Result, error) {
		panic("tool bug")
	}, tool.AsReadOnly()) // it changes nothing, so Default mode does not ask before it
	start := scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "write a.txt", planning.TodoInProgress), todo("2", "check", planning.TodoPending)))}
	work := scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))}
	cases := []struct {
		name   string
		last   []scripted.Turn
		opts   []agent.Option
		cancel bool // cancel when the write_file result arrives
		panics bool // the provider panics on the third call
		want   agent.RunStatus
	}{
		{name: "normal", last: []scripted.Turn{{Text: "written"}}, want: agent.RunCompleted},
		{name: "max turns", opts: []agent.Option{agent.WithMaxTurns(2)}, want: agent.RunMaxTurns},
		{name: "cancel", cancel: true, want: agent.RunCancelled},
		{name: "provider error", last: []scripted.Turn{{Err: errors.New("502 bad gateway")}}, want: agent.RunError},
		{name: "panic in a tool", last: []scripted.Turn{{Calls: scripted.Calls(scripted.Call("explode", nil))}, {Text: "it blew up"}}, want: agent.RunCompleted},
		{name: "panic in the loop", panics: true, want: agent.RunError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, append([]scripted.Turn{start, work}, c.last...)...)
			h.extra = []tool.Tool{explode}
			var eng *agent.Engine
			if c.panics {
				p := &panicOnCall{Provider: h.p, at: 3}
				var err error
				eng, err = agent.New(p, agent.WithStore(h.store), agent.WithWorkdir(h.dir), agent.WithPlanFiles(h.home),
					agent.WithTools(h.tools()...))
				if err != nil {
					t.Fatal(err)
				}
			} else {
				eng = h.engine(c.opts...)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var evs []agent.Event
			for ev := range eng.Run(ctx, "start") {
				evs = append(evs, ev)
				if r, ok := ev.(agent.ToolResult); ok && c.cancel && r.Name == "write_file" {
					cancel()
				}
			}
			checkFraming(t, evs)
			wantDone(t, evs, c.want)
			if _, ok := h.file("a.txt"); !ok {
				t.Fatal("the work was not done")
			}

			// A new process on a fresh store handle.
			h.p = scripted.New(
				scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "write a.txt", planning.TodoCompleted), todo("2", "check", planning.TodoPending)))},
				scripted.Turn{Text: "ok"},
			)
			h.store = h.open()
			again := h.engine(agent.WithSession(eng.SessionID()))
			got := again.Todos()
			if len(got) != 2 || got[0].Status != planning.TodoInProgress || got[1].Status != planning.TodoPending {
				t.Fatalf("todos after %s = %+v", c.name, got)
			}
			if again.Status() != planning.StatusIdle {
				t.Errorf("status after %s = %s, want idle", c.name, again.Status())
			}
			evs = drain(t, again.Run(context.Background(), "mark it done"))
			wantDone(t, evs, agent.RunCompleted)
			if res := resultsOf(evs); len(res) != 1 || res[0].IsError {
				t.Fatalf("after %s the evidence of the write was lost: %+v", c.name, res)
			}
		})
	}
}

// TestUserPromptSurvivesAFailedFirstCall: messages are saved as they
// happen; the prompt is in the store before the first model call.
func TestUserPromptSurvivesAFailedFirstCall(t *testing.T) {
	h := newHarness(t, scripted.Turn{Err: errors.New("401 unauthorized")})
	eng := h.engine()
	wantDone(t, drain(t, eng.Run(context.Background(), "the precious prompt")), agent.RunError)
	msgs := h.messages(eng.SessionID())
	if len(msgs) != 1 || msgs[0].Role != llm.RoleUser || msgs[0].Content != "the precious prompt" {
		t.Fatalf("stored = %+v, want only the prompt", msgs)
	}
}

// TestMessagesAreStoredBeforeTheNextModelCall: each assistant message and
// tool result is in the store while the run is still going, not only at its
// end.
func TestMessagesAreStoredBeforeTheNextModelCall(t *testing.T) {
	h := newHarness(t)
	var id string
	var seen int
	h.p.Add(
		scripted.Turn{Text: "Reading.", Calls: scripted.Calls(scripted.Call("list_files", nil))},
		scripted.Turn{Respond: func(llm.Request) scripted.Turn {
			msgs := h.messages(id) // another handle: what a crash would leave
			seen = len(msgs)
			return scripted.Turn{Text: "done"}
		}},
	)
	eng := h.engine()
	for ev := range eng.Run(context.Background(), "look") {
		if s, ok := ev.(agent.SessionStarted); ok {
			id = s.SessionID
		}
	}
	if seen != 3 {
		t.Fatalf("during the second model call the store held %d messages, want 3 (prompt, assistant, tool result)", seen)
	}
}

// TestTodoFileIsLiveDuringExecution: TODO.md is rewritten by every
// todo_write while the approved plan executes, not only at the end.
func TestTodoFileIsLiveDuringExecution(t *testing.T) {
	h := newHarness(t)
	eng := planned(t, h, "create a.txt", "create b.txt")
	var mid, planFileMid string
	peek := func(next scripted.Turn) scripted.Turn {
		return scripted.Turn{Respond: func(llm.Request) scripted.Turn {
			b, err := os.ReadFile(filepath.Join(eng.TaskDir(), planning.TodoFileName))
			if err != nil {
				t.Errorf("TODO.md during execution: %v", err)
			}
			mid = string(b)
			p, _ := os.ReadFile(eng.PlanFile())
			planFileMid = string(p)
			return next
		}}
	}
	h.p.Add(
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoInProgress), todo("2", "create b.txt", planning.TodoPending)))},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted), todo("2", "create b.txt", planning.TodoInProgress)))},
		peek(scripted.Turn{Calls: scripted.Calls(write("b.txt", "b"))}),
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted), todo("2", "create b.txt", planning.TodoCompleted)))},
		scripted.Turn{Text: "done"},
	)
	wantDone(t, drain(t, eng.Approve(context.Background(), planning.ModeDefault)), agent.RunCompleted)
	if !strings.Contains(mid, "- [x] create a.txt\n- [>] create b.txt\n") || !strings.Contains(mid, "1/2 completed") {
		t.Errorf("TODO.md mid-execution:\n%s", mid)
	}
	if !strings.Contains(planFileMid, "- [x] create a.txt\n- [>] create b.txt\n") {
		t.Errorf("session plan file mid-execution:\n%s", planFileMid)
	}
	final, err := os.ReadFile(filepath.Join(eng.TaskDir(), planning.TodoFileName))
	if err != nil || !strings.Contains(string(final), "- [x] create a.txt\n- [x] create b.txt\n") {
		t.Errorf("TODO.md at the end: %q, %v", final, err)
	}
	plan, err := os.ReadFile(filepath.Join(eng.TaskDir(), planning.PlanFileName))
	if err != nil || !strings.Contains(string(plan), "1. create a.txt\n2. create b.txt\n") {
		t.Errorf("PLAN.md: %q, %v", plan, err)
	}
}

// TestSessionPlanFileRewrittenOnEveryTodoWrite: <base>/plans/<unix>-<id8>.md
// follows every todo_write, and its name is fixed by the first one.
func TestSessionPlanFileRewrittenOnEveryTodoWrite(t *testing.T) {
	h := newHarness(t)
	var first string
	h.p.Add(
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "alpha", planning.TodoPending), todo("2", "beta", planning.TodoPending)))},
		scripted.Turn{Respond: func(llm.Request) scripted.Turn {
			matches, _ := filepath.Glob(filepath.Join(h.dir, ".harness9", "plans", "*.md"))
			if len(matches) == 1 {
				b, _ := os.ReadFile(matches[0])
				first = string(b)
			}
			return scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "alpha", planning.TodoInProgress), todo("2", "beta", planning.TodoCancelled)))}
		}},
		scripted.Turn{Text: "ok"},
	)
	eng := h.engine()
	wantDone(t, drain(t, eng.Run(context.Background(), "plan")), agent.RunCompleted)
	if !strings.Contains(first, "- [ ] alpha\n- [ ] beta\n") {
		t.Errorf("plan file after the first todo_write:\n%s", first)
	}
	pf := eng.PlanFile()
	name := fmt.Sprintf("%d-%s.md", h.clock.Unix(), eng.SessionID()[:8])
	if pf != filepath.Join(h.dir, ".harness9", "plans", name) {
		t.Fatalf("plan file = %q, want .harness9/plans/%s", pf, name)
	}
	b, err := os.ReadFile(pf)
	if err != nil || !strings.Contains(string(b), "- [>] alpha\n- [-] beta\n") || strings.Contains(string(b), "- [ ]") {
		t.Errorf("plan file after the second todo_write: %q, %v", b, err)
	}
	if matches, _ := filepath.Glob(filepath.Join(h.dir, ".harness9", "plans", "*")); len(matches) != 1 {
		t.Errorf("plans dir = %v, want one file", matches)
	}
}

// TestPlanFilesOutsideGitGoToHome: a workdir without .git keeps no
// .harness9 directory; plans and tasks land in the harness9 home.
func TestPlanFilesOutsideGitGoToHome(t *testing.T) {
	h := newHarness(t)
	if err := os.Remove(filepath.Join(h.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	eng := planned(t, h, "create a.txt")
	h.p.Add(
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoInProgress)))},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted)))},
		scripted.Turn{Text: "done"},
	)
	wantDone(t, drain(t, eng.Approve(context.Background(), planning.ModeDefault)), agent.RunCompleted)
	if dir := filepath.Dir(eng.PlanFile()); dir != filepath.Join(h.home, "plans") {
		t.Errorf("plan file in %q, want %q", dir, filepath.Join(h.home, "plans"))
	}
	if dir := filepath.Dir(eng.TaskDir()); dir != filepath.Join(h.home, "tasks") {
		t.Errorf("task dir in %q, want %q", dir, filepath.Join(h.home, "tasks"))
	}
	if _, err := os.Stat(filepath.Join(h.dir, ".harness9")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a non-git workdir got a .harness9 directory (%v)", err)
	}
}

// TestPlanFileFailuresAreLoggedNotSentToTheModel: a plans directory that
// cannot be created (a file stands in its place) and a TODO.md that cannot
// be replaced (a directory stands in its place) leave todo_write
// successful; the failures go to the log.
func TestPlanFileFailuresAreLoggedNotSentToTheModel(t *testing.T) {
	h := newHarness(t)
	if err := os.MkdirAll(filepath.Join(h.dir, ".harness9"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.dir, ".harness9", "plans"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	h.p.Add(scripted.Turn{Calls: scripted.Calls(submitCall("Blocked files", "create a.txt"))})
	eng := h.engine(agent.WithMode(planning.ModePlan), agent.WithLogger(logger))
	evs := drain(t, eng.Run(context.Background(), "plan"))
	wantDone(t, evs, agent.RunAwaitingApproval)
	if res := resultsOf(evs); len(res) != 1 || res[0].IsError {
		t.Fatalf("submit_plan with an unwritable plans dir: %+v", res)
	}

	var taskDir string
	h.p.Add(
		scripted.Turn{Respond: func(llm.Request) scripted.Turn {
			// Put a non-empty directory where TODO.md is, so no rename can replace it.
			taskDir = eng.TaskDir()
			todoPath := filepath.Join(taskDir, planning.TodoFileName)
			if err := os.Remove(todoPath); err != nil {
				t.Error(err)
			}
			if err := os.MkdirAll(filepath.Join(todoPath, "blocker"), 0o755); err != nil {
				t.Error(err)
			}
			return scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoInProgress)))}
		}},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))},
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted)))},
		scripted.Turn{Text: "done"},
	)
	evs = drain(t, eng.Approve(context.Background(), planning.ModeDefault))
	wantDone(t, evs, agent.RunCompleted)
	for _, r := range resultsOf(evs) {
		if r.IsError {
			t.Errorf("%s failed: %s", r.Name, r.Output)
		}
		for _, leak := range []string{"plans", "TODO.md", "not a directory", "is a directory"} {
			if strings.Contains(r.Output, leak) {
				t.Errorf("%s result leaks the plan-file failure (%q): %s", r.Name, leak, r.Output)
			}
		}
	}
	if got := eng.Todos(); len(got) != 1 || got[0].Status != planning.TodoCompleted {
		t.Errorf("todos = %+v", got)
	}
	log := logs.String()
	if !strings.Contains(log, "plan file") || !strings.Contains(log, "TODO.md") {
		t.Errorf("the failures were not logged:\n%s", log)
	}
}

// TestApprovalResetsPlanningEvidence: reads done while planning are no
// evidence that a step was carried out, whether the plan came from
// submit_plan or from the fallback (todos left without submit_plan).
func TestApprovalResetsPlanningEvidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		plan []scripted.Turn
	}{
		{"submit_plan then more reading", []scripted.Turn{
			{Calls: scripted.Calls(submitCall("Greeting", "create a.txt"))},
		}},
		{"fallback plan", []scripted.Turn{
			{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoPending)))},
			{Calls: scripted.Calls(scripted.Call("list_files", nil))},
			{Text: "Greeting\n\nOne file."},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.plan...)
			eng := h.engine(agent.WithMode(planning.ModePlan))
			wantDone(t, drain(t, eng.Run(context.Background(), "plan")), agent.RunAwaitingApproval)
			if strings.HasPrefix(tc.name, "submit_plan") {
				// Keep refining: more reading, no new plan.
				h.p.Add(
					scripted.Turn{Calls: scripted.Calls(scripted.Call("list_files", nil))},
					scripted.Turn{Text: "Still the same plan."},
				)
				drain(t, eng.Run(context.Background(), "look again"))
				if eng.Status() != planning.StatusAwaitingApproval {
					t.Fatalf("status after refining = %s", eng.Status())
				}
			}
			h.p.Add(
				// Claims the step at once, with nothing done since approval.
				scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted)))},
				scripted.Turn{Calls: scripted.Calls(write("a.txt", "a"))},
				scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "create a.txt", planning.TodoCompleted)))},
				scripted.Turn{Text: "done"},
			)
			evs := drain(t, eng.Approve(context.Background(), planning.ModeDefault))
			wantDone(t, evs, agent.RunCompleted)
			res := resultsOf(evs)
			if len(res) != 3 || !res[0].IsError || !strings.Contains(res[0].Output, "no evidence") || res[1].IsError || res[2].IsError {
				t.Fatalf("results = %+v; want the claim refused, the write done, then the claim accepted", res)
			}
		})
	}
}

// TestForcedWriteInPlanModeThroughEveryPath: a write_file call the model
// was not offered is refused by the registry whether it comes alone or in a
// message with read-only calls, and nothing is written.
func TestForcedWriteInPlanModeThroughEveryPath(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(read("x"), write("one.txt", "1"), scripted.Call("list_files", nil))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("edit_file", map[string]any{"path": "two.txt", "old_string": "", "new_string": "2"}))},
		scripted.Turn{Text: "ok"},
	)
	eng := h.engine(agent.WithMode(planning.ModePlan))
	evs := drain(t, eng.Run(context.Background(), "try"))
	wantDone(t, evs, agent.RunCompleted)
	for _, r := range resultsOf(evs) {
		if (r.Name == "write_file" || r.Name == "edit_file") && (!r.IsError || !strings.Contains(r.Output, "not available in Plan Mode")) {
			t.Errorf("%s in Plan Mode: %+v", r.Name, r)
		}
	}
	for _, f := range []string{"one.txt", "two.txt"} {
		if _, ok := h.file(f); ok {
			t.Errorf("%s was written in Plan Mode", f)
		}
	}
	for i, req := range h.p.Requests() {
		for _, name := range toolNames(req) {
			if name == "write_file" || name == "edit_file" {
				t.Errorf("request %d offered %s in Plan Mode", i, name)
			}
		}
	}
}

// TestSetModeMidRunKeepsTheLoopsTools: switching to Plan Mode during a
// Default run neither hides write tools from that run nor refuses them; the
// next run gets Plan Mode.
func TestSetModeMidRunKeepsTheLoopsTools(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("list_files", nil))},
		scripted.Turn{Calls: scripted.Calls(write("a.txt", "a")), Match: scripted.HasTool("write_file")},
		scripted.Turn{Text: "written"},
		scripted.Turn{Text: "planning now", Match: scripted.All(scripted.NoTool("write_file"), scripted.HasTool("submit_plan"))},
	)
	eng := h.engine()
	var evs []agent.Event
	for ev := range eng.Run(context.Background(), "write") {
		evs = append(evs, ev)
		if c, ok := ev.(agent.ToolCall); ok && c.Name == "list_files" {
			eng.SetMode(planning.ModePlan)
		}
	}
	wantDone(t, evs, agent.RunCompleted)
	if _, ok := h.file("a.txt"); !ok {
		t.Fatal("the running Default loop lost write_file when the mode changed")
	}
	if s := ofType[agent.SessionStarted](evs); len(s) != 1 || s[0].Mode != planning.ModeDefault {
		t.Errorf("SessionStarted = %+v", s)
	}
	wantDone(t, drain(t, eng.Run(context.Background(), "plan")), agent.RunCompleted)
}

var planFileName = regexp.MustCompile(`^\d+-[0-9a-f]{8}\.md$`)

// TestPlanFileNameWithoutStore: an engine without a store still names its
// plan file <unix>-<id8>.md.
func TestPlanFileNameWithoutStore(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	p := scripted.New(
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "x", planning.TodoPending)))},
		scripted.Turn{Text: "ok"},
	)
	eng, err := agent.New(p, agent.WithWorkdir(dir), agent.WithPlanFiles(home))
	if err != nil {
		t.Fatal(err)
	}
	wantDone(t, drain(t, eng.Run(context.Background(), "x")), agent.RunCompleted)
	if pf := eng.PlanFile(); filepath.Dir(pf) != filepath.Join(home, "plans") || !planFileName.MatchString(filepath.Base(pf)) {
		t.Errorf("plan file = %q", pf)
	}
}

// TestTodosLoadAtLoopStart: every loop starts from the todos in the store,
// so an engine that sat idle while another process changed the session
// neither ignores nor overwrites that change.
func TestTodosLoadAtLoopStart(t *testing.T) {
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "old", planning.TodoPending)))},
		scripted.Turn{Text: "noted"},
	)
	a := h.engine()
	wantDone(t, drain(t, a.Run(context.Background(), "one")), agent.RunCompleted)

	h.p.Add(
		scripted.Turn{Calls: scripted.Calls(todoCall(todo("1", "old", planning.TodoInProgress), todo("2", "new", planning.TodoPending)))},
		scripted.Turn{Text: "changed"},
	)
	h.store = h.open()
	b := h.engine(agent.WithSession(a.SessionID()))
	wantDone(t, drain(t, b.Run(context.Background(), "two")), agent.RunCompleted)

	h.p.Add(scripted.Turn{Text: "just talking"})
	wantDone(t, drain(t, a.Run(context.Background(), "three")), agent.RunCompleted)
	if got := a.Todos(); len(got) != 2 || got[0].Status != planning.TodoInProgress {
		t.Fatalf("a's todos after its next run = %+v, want the list b wrote", got)
	}
	h.store = h.open()
	if got := h.engine(agent.WithSession(a.SessionID())).Todos(); len(got) != 2 {
		t.Fatalf("stored todos = %+v: a's run overwrote b's list", got)
	}
}
