//go:build unix

package durable_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/internal/lib/temporaltest"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// The planning workflow is written once (internal/driver) and both engines
// run it: the local engine in its process, the durable one as a Temporal
// workflow whose steps are activities on fresh engines. Every scenario of
// the planning tests runs here on both — the durable one on a real
// Temporal dev server — and the two must agree on everything a user can
// see: how each call ends, the events (as `run --json` and `serve` show
// them), the stored state, the stored conversation, the files in the
// workdir, the hooks that ran and the compactions made.
//
// A scenario is a sequence of what a user does. A run and a continue are a
// new process on the local engine (a fresh engine, as `harness9 run
// --resume` makes) and a new workflow on the durable one; a review answers
// the plan awaiting approval, on the same engine or in the same workflow.
// A call that needs the user's permission is asked on both: the local
// engine blocks on the question, the durable workflow waits for it across
// steps; the scenario's answers are given in order, through the engine's
// ApprovalRequest locally and as updates to the workflow, and what the
// user is asked and answers is compared with the rest.
type action struct {
	run      bool // a user's prompt, in mode
	mode     planning.Mode
	prompt   string
	review   planning.ReviewChoice // answer the plan awaiting approval
	feedback string
	cont     bool // continue an approved plan
	// later: the review comes from a new process (`run --resume ID
	// --approve auto`) after the one that made the plan ended; on the
	// durable engine, a new workflow given the answer.
	later bool
}

func run(mode planning.Mode, prompt string) action {
	return action{run: true, mode: mode, prompt: prompt}
}
func review(c planning.ReviewChoice, feedback string) action {
	return action{review: c, feedback: feedback}
}

var continueIt = action{cont: true}

func reviewLater(c planning.ReviewChoice) action { return action{review: c, later: true} }

type scenario struct {
	name    string
	want    []agent.RunStatus // how each action ends
	turns   []scripted.Turn
	actions []action
	stall   int  // stall threshold (0: the default)
	turnCap int  // max turns (0: the default)
	hooks   bool // the user's hooks (recHooks): block the first stop and a prompt saying "forbidden"
	// window, when set, is the model's context window, with a compactor
	// that keeps the newest 2 messages and summarises with its own model.
	window int
	// compactWith, when not nil, replaces the compactor's options; system
	// is the system prompt (""; the default), setup prepares the workdir
	// and summaries makes the summariser (nil: one fixed answer).
	compactWith []compact.Option
	system      string
	setup       func(dir string) error
	summaries   func() *scripted.Provider
	// answers answer the permission questions, in the order asked; ask
	// are ask rules.
	answers []reply
	ask     []string
	// continueAfter makes the durable workflow continue as new after
	// this many steps (0: never in these scenarios).
	continueAfter int
}

// reply is the user's answer to a permission question.
type reply struct{ answer, reason string }

func TestBothEnginesAgreeOnEveryPlanningScenario(t *testing.T) {
	c := temporaltest.Start(t).Client(t)
	for i, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			local := runLocal(t, sc)
			var want []string
			for _, w := range sc.want {
				want = append(want, string(w))
			}
			compare(t, "how each call ended, against the scenario", want, local.statuses)
			remote := runDurable(t, c, sc, fmt.Sprintf("agree-%d-%d", i, time.Now().UnixNano()))
			compare(t, "how each call ended", local.statuses, remote.statuses)
			compare(t, "events", local.events, remote.events)
			compare(t, "stored state", local.state, remote.state)
			compare(t, "stored conversation", local.messages, remote.messages)
			compare(t, "files", local.files, remote.files)
			compare(t, "hooks", local.hooks, remote.hooks)
			compare(t, "summarisation calls", local.summaries, remote.summaries)
		})
	}
}

func compare(t *testing.T, what string, local, durable []string) {
	t.Helper()
	if strings.Join(local, "\n") == strings.Join(durable, "\n") {
		return
	}
	n := max(len(local), len(durable))
	var b strings.Builder
	for i := range n {
		l, d := "(none)", "(none)"
		if i < len(local) {
			l = local[i]
		}
		if i < len(durable) {
			d = durable[i]
		}
		mark := "  "
		if l != d {
			mark = "≠ "
		}
		fmt.Fprintf(&b, "%s%3d local:   %s\n      durable: %s\n", mark, i, l, d)
	}
	t.Errorf("the engines disagree on %s:\n%s", what, b.String())
}

// world is one engine's side of a scenario: a git workdir, a data dir, a
// SQLite store, the scripted model and the user's hooks.
type world struct {
	t     *testing.T
	sc    scenario
	dir   string
	home  string
	store session.Store
	model *scripted.Provider
	// summariser is the compactor's model (scenario.window).
	summariser *scripted.Provider
	hooks      *recHooks
	id         string
	// answered counts the scenario's answers given.
	answered int
}

// next returns the scenario's answer to the next question.
func (w *world) next(call string) reply {
	w.t.Helper()
	if w.answered >= len(w.sc.answers) {
		w.t.Fatalf("the scenario asked about %s beyond its %d answers", call, len(w.sc.answers))
	}
	w.answered++
	return w.sc.answers[w.answered-1]
}

func newWorld(t *testing.T, sc scenario) *world {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "harness9.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	w := &world{t: t, sc: sc, dir: dir, home: t.TempDir(), store: st, model: scripted.New(sc.turns...)}
	if sc.hooks {
		w.hooks = &recHooks{}
	}
	if sc.window > 0 {
		w.summariser = scripted.New(scripted.Turn{Text: "Goal: list files.\nProgress: listed them."})
	}
	if sc.summaries != nil {
		w.summariser = sc.summaries()
	}
	if sc.setup != nil {
		if err := sc.setup(dir); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// engine opens a fresh engine for each step (durable.EnginesFunc).
func (w *world) engine(_ context.Context, id string, _ durable.Settings) (*agent.Engine, error) {
	ws, err := tool.NewWorkspace(w.dir, tool.WithHome(w.home))
	if err != nil {
		return nil, err
	}
	sb, err := sandbox.New(w.dir, sandbox.WithDeny(ws.DenyList()...))
	if err != nil {
		return nil, err
	}
	opts := []agent.Option{agent.WithModel("test-model"), agent.WithWorkspace(ws), agent.WithStore(w.store),
		agent.WithTools(builtin.All(ws, builtin.WithSandbox(sb))...), agent.WithPlanFiles(w.home),
		agent.WithClock(func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }),
		agent.WithStallThreshold(w.sc.stall), agent.WithMaxTurns(w.sc.turnCap)}
	if id != "" {
		opts = append(opts, agent.WithSession(id))
	}
	if w.hooks != nil {
		opts = append(opts, agent.WithHooks(w.hooks))
	}
	if w.summariser != nil {
		copts := w.sc.compactWith
		if copts == nil {
			copts = []compact.Option{compact.WithKeepRecent(2)}
		}
		opts = append(opts, agent.WithContextWindow(w.sc.window), agent.WithCompactor(compact.New(w.summariser, "m", copts...)))
	}
	if w.sc.system != "" {
		opts = append(opts, agent.WithSystemPrompt(w.sc.system))
	}
	// Rules of each engine's own, as a process (a worker) reads them when
	// it starts: an always answer reaches later engines only through the
	// engine that carries the session on.
	rules := permission.New(w.dir)
	if err := rules.Add(permission.Ask, "scenario", w.sc.ask...); err != nil {
		return nil, err
	}
	opts = append(opts, agent.WithPermissions(rules))
	return agent.New(w.model, opts...)
}

// outcome is what a user can see of a scenario, with the paths and ids
// that differ between the two worlds written as placeholders.
type outcome struct {
	statuses, events, state, messages, files, hooks, summaries []string
}

func runLocal(t *testing.T, sc scenario) outcome {
	w := newWorld(t, sc)
	var out outcome
	var eng *agent.Engine
	open := func() {
		var err error
		if eng, err = w.engine(context.Background(), w.id, durable.Settings{}); err != nil {
			t.Fatal(err)
		}
	}
	play := func(seq func(func(agent.Event) bool)) {
		status := agent.RunStatus("(no done)")
		for ev := range seq {
			if req, ok := ev.(*agent.ApprovalRequest); ok {
				out.events = append(out.events, asked(req))
				r := w.next(req.Call.ID)
				d, err := req.Decision(r.answer)
				if err != nil {
					t.Fatal(err)
				}
				req.Respond(d, r.reason)
				out.events = append(out.events, "answered "+req.Call.ID+" "+r.answer)
				continue
			}
			if d, ok := ev.(agent.Done); ok {
				status = d.Status
			}
			if env, ok := durable.Encode(ev); ok {
				out.events = append(out.events, env.Type+" "+string(env.Data))
			}
		}
		w.id = eng.SessionID()
		out.statuses = append(out.statuses, string(status))
	}
	ctx := context.Background()
	for _, a := range sc.actions {
		switch {
		case a.run:
			open()
			eng.SetMode(a.mode)
			play(eng.Run(ctx, a.prompt))
		case a.cont:
			open()
			play(eng.Continue(ctx))
		default:
			if a.later {
				open()
			}
			start, err := eng.Review(a.review, a.feedback)
			switch {
			case err != nil:
				out.statuses = append(out.statuses, "review failed: "+err.Error())
			case start != nil:
				play(start(ctx))
			case eng.Status() == planning.StatusAwaitingApproval:
				out.statuses = append(out.statuses, string(agent.RunAwaitingApproval))
			default:
				out.statuses = append(out.statuses, string(agent.RunCompleted))
			}
		}
	}
	return w.seen(out)
}

func runDurable(t *testing.T, c client.Client, sc scenario, queue string) outcome {
	w := newWorld(t, sc)
	wk := durable.NewWorker(c, queue, durable.NewActivities(durable.EnginesFunc(w.engine)))
	if err := wk.Start(); err != nil {
		t.Fatal(err)
	}
	defer wk.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out outcome
	var fol *durable.Follower
	waiting := false
	follow := func() {
		st, err := fol.Follow(ctx, w.id, true, func(ev agent.Event) {
			switch ev := ev.(type) {
			case *agent.ApprovalRequest:
				out.events = append(out.events, asked(ev))
				r := w.next(ev.Call.ID)
				err := durable.AnswerPermission(ctx, c, w.id, durable.PermissionAnswer{Ask: ev.Call.ID, Answer: r.answer, Reason: r.reason})
				if err != nil {
					t.Errorf("answer %s: %v", ev.Call.ID, err)
				}
				return
			case durable.PermissionAnswered:
				out.events = append(out.events, "answered "+ev.ID+" "+ev.Answer)
				return
			}
			if env, ok := durable.Encode(ev); ok {
				out.events = append(out.events, env.Type+" "+string(env.Data))
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		waiting = !st.Finished
		status := st.Result
		if waiting {
			status = agent.RunAwaitingApproval
		}
		out.statuses = append(out.statuses, string(status))
	}
	// walkAway ends the workflow waiting for a review, as a user who
	// leaves does: the plan stays awaiting approval in the store.
	walkAway := func() {
		if err := durable.Cancel(ctx, c, w.id); err != nil {
			t.Fatal(err)
		}
		var res durable.Result
		if err := c.GetWorkflow(ctx, durable.WorkflowID(w.id), "").Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		waiting = false
	}
	start := func(in durable.Input) {
		if waiting {
			t.Fatal("the scenario starts a workflow while one waits for a review")
		}
		in.SessionID, in.TaskQueue, in.StallThreshold, in.MaxTurns = w.id, queue, sc.stall, sc.turnCap
		in.ContinueAfter = sc.continueAfter
		in.HistoryLen = len(w.stored().Messages)
		if err := durable.Start(ctx, c, in); err != nil {
			t.Fatal(err)
		}
		fol = durable.NewFollower(c, durable.WithPoll(20*time.Millisecond))
		follow()
	}
	for _, a := range sc.actions {
		switch {
		case a.run:
			if w.id == "" {
				s := &session.Session{Workdir: w.dir, Model: "scripted/test-model", Title: agent.SessionTitle(a.prompt), Mode: a.mode}
				if err := w.store.Create(ctx, s); err != nil {
					t.Fatal(err)
				}
				w.id = s.ID
			}
			start(durable.Input{Prompt: a.prompt, Mode: a.mode})
		case a.cont:
			start(durable.Input{Continue: true})
		case a.later:
			if waiting {
				walkAway()
			}
			start(durable.Input{Review: true, Answer: &durable.Review{Choice: a.review, Feedback: a.feedback}})
		default:
			if !waiting {
				t.Fatal("the scenario reviews a plan no workflow waits for")
			}
			if _, err := durable.Answer(ctx, c, w.id, durable.Review{Choice: a.review, Feedback: a.feedback}); err != nil {
				out.statuses = append(out.statuses, "review failed: "+err.Error())
				continue
			}
			fol.Answered()
			follow()
		}
	}
	if waiting {
		walkAway()
	}
	if sc.continueAfter > 0 {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Query: "WorkflowId = '" + durable.WorkflowID(w.id) + "'"})
		if err != nil || len(resp.Executions) < 2 {
			t.Fatalf("the workflow did not continue as new: %v runs (%v)", resp.GetExecutions(), err)
		}
	}
	return w.seen(out)
}

// asked is a permission question as both engines' users see it.
func asked(req *agent.ApprovalRequest) string {
	return fmt.Sprintf("asked %s %s why=%q rules=%q preview=%q", req.Call.ID, req.Call.Name, req.Why, req.Rules, req.Preview)
}

// seen completes out with what the store and the disk hold, and writes
// the world's paths and session id as placeholders.
func (w *world) seen(out outcome) outcome {
	w.t.Helper()
	if w.answered != len(w.sc.answers) {
		w.t.Errorf("%d of the scenario's %d answers were asked for", w.answered, len(w.sc.answers))
	}
	st := w.stored()
	out.state = []string{mustJSON(w.t, st.State)}
	for _, m := range st.Messages {
		out.messages = append(out.messages, mustJSON(w.t, m))
	}
	err := filepath.WalkDir(w.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(w.dir, path)
		out.files = append(out.files, rel+": "+string(b))
		return err
	})
	if err != nil {
		w.t.Fatal(err)
	}
	sort.Strings(out.files)
	if w.hooks != nil {
		out.hooks = seenHooks(w.hooks)
	}
	if w.summariser != nil {
		out.summaries = []string{fmt.Sprintf("%d summarisation calls", len(w.summariser.Requests()))}
	}
	placeholders := strings.NewReplacer(w.dir, "<workdir>", w.home, "<home>", w.id, "<session>", w.id[:min(8, len(w.id))], "<id8>")
	for _, list := range []*[]string{&out.events, &out.state, &out.messages, &out.files, &out.hooks} {
		for i, s := range *list {
			(*list)[i] = placeholders.Replace(s)
		}
	}
	return out
}

type stored struct {
	State    session.State
	Messages []llm.Message
}

func (w *world) stored() stored {
	w.t.Helper()
	if w.id == "" {
		return stored{}
	}
	ctx := context.Background()
	st, err := w.store.LoadState(ctx, w.id)
	if err != nil {
		w.t.Fatal(err)
	}
	msgs, err := w.store.Messages(ctx, w.id)
	if err != nil {
		w.t.Fatal(err)
	}
	return stored{st, msgs}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// seenHooks lists the hook events h saw, one line each.
func seenHooks(h *recHooks) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		out = append(out, fmt.Sprintf("%s source=%q prompt=%q tool=%s active=%v mode=%s session=%s",
			e.Name, e.Source, e.Prompt, e.ToolName, e.StopHookActive, e.PermissionMode, e.SessionID))
	}
	return out
}
