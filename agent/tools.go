package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
)

// buildRegistry registers the user's tools, then todo_write and
// submit_plan, and notes which tools are read-only (they stay visible in
// Plan mode).
func (e *Engine) buildRegistry() error {
	e.registry = tool.NewRegistry(tool.WithTimeout(e.cfg.toolTimeout), tool.WithMaxOutput(e.cfg.maxToolOutput))
	if err := e.registry.Register(e.cfg.tools...); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	e.takeSourceTools()
	if t := e.taskTool(); t != nil {
		if err := e.registry.Register(t); err != nil {
			return fmt.Errorf("agent: %w (the task tool is provided by the engine with WithSubagents)", err)
		}
		e.taskName = t.Name()
	}
	if e.isChild() {
		// A sub-agent answers its parent; the todo list and plans are the
		// parent's.
		return e.noteProperties()
	}
	twOpts := []planning.TodoWriteOption{planning.WithPlanWriter(planWriter{e}), planning.WithLogger(e.log)}
	if e.cfg.evidenceGate {
		twOpts = append(twOpts, planning.WithEvidence(e.st.Evidence()))
	}
	err := e.registry.Register(
		planning.NewTodoWriteTool(e.st.TodoStore(), twOpts...),
		planning.NewSubmitPlanTool(e.st.TodoStore(), e.st.Submit,
			planning.WithSubmitEvidence(e.st.Evidence()), planning.WithSubmitPlanWriter(planWriter{e})),
	)
	if err != nil {
		return fmt.Errorf("agent: %w (todo_write and submit_plan are provided by the engine)", err)
	}
	return e.noteProperties()
}

// noteProperties notes which of the user's tools are read-only or can run
// read-only. The caller holds e.src.mu, or is New.
func (e *Engine) noteProperties() error {
	e.readOnly, e.shell, e.notReadOnly, e.gateOnly = nil, nil, nil, nil
	if e.taskName != "" {
		// Offered while planning too: the runner lets Plan Mode start only
		// read-only sub-agents, which run under Plan Mode's gate.
		e.readOnly = append(e.readOnly, e.taskName)
	}
	for _, t := range e.userToolsLocked() {
		if ro, ok := t.(tool.ReadOnly); ok && ro.ReadOnly() {
			e.readOnly = append(e.readOnly, t.Name())
		}
		if rc, ok := t.(tool.ReadOnlyCapable); ok {
			if rc.CanRunReadOnly() {
				e.shell = append(e.shell, t.Name())
				if g, ok := t.(tool.GateOnly); ok && g.GateOnly() {
					e.gateOnly = append(e.gateOnly, t.Name())
				}
			} else {
				e.notReadOnly = append(e.notReadOnly, t.Name())
			}
		}
	}
	return nil
}

// gateFor is the tool gate of a run in mode. While planning, a tool that
// can only run read-only under the kernel sandbox (bash) is withheld when
// it cannot here: Plan Mode's promise rests on the kernel, not on a parser.
func (e *Engine) gateFor(mode planning.Mode) tool.Gate {
	e.src.mu.RLock()
	defer e.src.mu.RUnlock()
	g := planning.NewGate(mode, planning.WithReadOnlyTools(e.readOnly...), planning.WithShellTools(e.shell...),
		planning.WithGateOnlyShellTools(e.gateOnly...), planning.WithWorkspace(e.ws))
	if !planning.PolicyFor(mode).ReadOnly || len(e.notReadOnly) == 0 {
		return g
	}
	return withheld{Gate: g, names: e.notReadOnly}
}

// withheld hides names from the model and refuses calls to them.
type withheld struct {
	tool.Gate
	names []string
}

func (w withheld) Visible(name string) bool {
	return !slices.Contains(w.names, name) && w.Gate.Visible(name)
}

func (w withheld) Check(name string, input json.RawMessage) error {
	if slices.Contains(w.names, name) {
		return fmt.Errorf("%s is not available while planning on this system: without the kernel sandbox "+
			"nothing guarantees that it changes nothing. Explore with the read-only tools and submit a plan", name)
	}
	return w.Gate.Check(name, input)
}

// planWriter keeps the plan files in step with every todo_write: the
// session's plans/<ts>-<id8>.md and, while an approved plan executes, the
// task directory's TODO.md, then the writers of WithPlanWriter. Failures are logged and never reach the model
// (fail-open: a plan file is a convenience for the user, and a full disk
// must not stop the model's work).
type planWriter struct{ e *Engine }

// Write implements planning.PlanWriter.
func (w planWriter) Write(todos []planning.TodoItem) error {
	e := w.e
	var choose func(sessionID string) string
	if e.cfg.planHome != "" {
		choose = func(id string) string { return planning.NewFilePlanWriter(e.planBase(), id, e.cfg.now()).Path() }
	}
	path, taskDir, title := e.st.PlanTargets(choose)
	if path != "" {
		if err := planning.OpenFilePlanWriter(path).Write(todos); err != nil {
			e.log.Warn("agent: could not write the session plan file", "path", path, "err", err)
		}
	}
	if taskDir != "" {
		if err := planning.NewTodoFileWriter(taskDir, title).Write(todos); err != nil {
			e.log.Warn("agent: could not write TODO.md", "task_dir", taskDir, "err", err)
		}
	}
	for _, w := range e.cfg.planWriters {
		if err := w.Write(todos); err != nil {
			e.log.Warn("agent: a plan writer failed", "writer", fmt.Sprintf("%T", w), "err", err)
		}
	}
	return nil
}

// planBase is where plan files and task directories land.
func (e *Engine) planBase() string { return planning.PlanBase(e.cfg.workdir, e.cfg.planHome) }

// runTools runs the calls of one assistant message and records every
// result in call order. Consecutive read-only or concurrency-safe calls
// run concurrently. It
// reports whether a tool ended the turn (submit_plan). Calls left unrun by
// cancellation or by an ended turn still get an error result, so every call
// in the history has its answer.
func (l *turnLoop) runTools(ctx context.Context, calls []llm.ToolCall) (endTurn bool, err error) {
	ctx = sandbox.ContextWithPolicy(ctx, l.policy.Sandbox)
	ctx = context.WithValue(ctx, loopKey{}, l)
	i := 0
	for i < len(calls) && ctx.Err() == nil && !endTurn {
		j := i + l.e.registry.BatchLen(calls[i:])
		group := calls[i:j]
		for _, c := range group {
			if _, answered := l.answers[c.ID]; !answered { // else reported when it was asked
				l.s.emit(ToolCall{ID: c.ID, Name: c.Name, Input: c.Input})
			}
		}
		var results []tool.Result
		if len(group) == 1 {
			results = []tool.Result{l.execute(ctx, group[0])}
			if l.asked {
				// The host puts the question to the user and runs the
				// batch again with the answer: this call and those after
				// it have no result yet.
				return false, nil
			}
		} else {
			// A batch is read-only or concurrency-safe calls (the
			// Registry's BatchLen), none of which is put to the user.
			results = l.executeBatch(ctx, group)
		}
		for k, res := range results {
			if err := l.record(ctx, group[k], res); err != nil {
				return false, err
			}
			endTurn = endTurn || (res.EndTurn && !res.IsError)
		}
		i = j
	}
	for _, c := range calls[i:] {
		reason := "cancelled: the run was stopped before this call ran"
		if endTurn {
			reason = "not run: an earlier call in this message ended the turn"
		}
		l.s.emit(ToolCall{ID: c.ID, Name: c.Name, Input: c.Input})
		if err := l.record(ctx, c, tool.Errorf("%s", reason)); err != nil {
			return false, err
		}
	}
	return endTurn, nil
}

// execute runs one call: its pre_tool_use hooks first (a block is the
// model's answer and the user is not asked), then the user when the mode
// or a rule requires it, then the tool and its post_tool_use hooks. A call
// the host has the user's answer for was asked, after its hooks, by an
// earlier attempt of this step: the answer settles it.
func (l *turnLoop) execute(ctx context.Context, call llm.ToolCall) tool.Result {
	_, answered := l.answers[call.ID]
	if !answered {
		if res, ok := l.preToolUse(ctx, call); !ok {
			return res
		}
	}
	if answered || l.needsApproval(call) {
		if res, ok := l.askUser(ctx, call); !ok {
			return res
		}
	}
	res := l.withProgress(ctx, call.ID, func(ctx context.Context) tool.Result {
		return l.runChecked(ctx, call)
	})
	l.postToolUse(ctx, call, &res)
	return res
}

// executeBatch runs read-only or concurrency-safe calls together, each
// after its pre_tool_use hooks (one at a time, in call order) let it
// through, emitting what they report meanwhile (pump).
func (l *turnLoop) executeBatch(ctx context.Context, group []llm.ToolCall) []tool.Result {
	results := make([]tool.Result, len(group))
	var run []llm.ToolCall
	var at []int
	for k, c := range group {
		if res, ok := l.preToolUse(ctx, c); !ok {
			results[k] = res
			continue
		}
		run, at = append(run, c), append(at, k)
	}
	ran := l.pump(ctx, run, func(ctx context.Context, c llm.ToolCall) tool.Result {
		return l.e.registry.Execute(ctx, l.gate, c)
	})
	for n, res := range ran {
		l.postToolUse(ctx, run[n], &res)
		results[at[n]] = res
	}
	return results
}

// withProgress runs fn, which executes one call, and meanwhile emits what
// the call reports (see pump).
func (l *turnLoop) withProgress(ctx context.Context, id string, fn func(context.Context) tool.Result) tool.Result {
	return l.pump(ctx, []llm.ToolCall{{ID: id}}, func(ctx context.Context, _ llm.ToolCall) tool.Result { return fn(ctx) })[0]
}

// pump runs fn for every call at once and meanwhile emits what the calls
// report: the output a tool writes (tool.Progress) as ToolOutput events,
// and a sub-agent's events (relayed through the context). Events are
// emitted from this goroutine only, as the stream requires; the calls only
// append to a queue and never wait for the consumer. Results keep the
// calls' order.
func (l *turnLoop) pump(ctx context.Context, calls []llm.ToolCall, fn func(context.Context, llm.ToolCall) tool.Result) []tool.Result {
	q := &eventQueue{wake: make(chan struct{}, 1)}
	results := make([]tool.Result, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		cctx := tool.ContextWithProgress(l.s.toolContext(ctx, c.ID), func(text string) { q.output(c.ID, text) })
		if l.e.cfg.userInput {
			cctx = tool.ContextWithAsker(cctx, l.asker(q, c.ID))
		}
		cctx = context.WithValue(cctx, relayKey{}, relay{id: c.ID, q: q})
		wg.Go(func() { results[i] = fn(cctx, c) })
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		select {
		case <-q.wake:
			q.flush(l.s)
		case <-done:
			q.flush(l.s)
			return results
		}
	}
}

// eventQueue holds the events running calls report until the loop's
// goroutine emits them.
type eventQueue struct {
	mu     sync.Mutex
	events []Event
	held   int // bytes of ToolOutput text held
	wake   chan struct{}
}

func (q *eventQueue) push(ev Event) {
	q.mu.Lock()
	q.events = append(q.events, ev)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// output queues a tool's output; past maxProgressBuffer held bytes the
// rest is dropped from the display only.
func (q *eventQueue) output(id, text string) {
	q.mu.Lock()
	if q.held >= maxProgressBuffer {
		q.mu.Unlock()
		return
	}
	q.held += len(text)
	if n := len(q.events); n > 0 {
		if last, ok := q.events[n-1].(ToolOutput); ok && last.ID == id {
			q.events[n-1] = ToolOutput{ID: id, Text: last.Text + text}
			q.mu.Unlock()
			return
		}
	}
	q.mu.Unlock()
	q.push(ToolOutput{ID: id, Text: text})
}

func (q *eventQueue) flush(s *stream) {
	q.mu.Lock()
	evs := q.events
	q.events, q.held = nil, 0
	q.mu.Unlock()
	for _, ev := range evs {
		s.emit(ev)
	}
}

// maxProgressBuffer bounds the output held between two ToolOutput events
// when the consumer is slower than the command; the rest is dropped from
// the display only.
const maxProgressBuffer = 64 << 10

// record appends a tool result to the history and reports it, then does the
// planning bookkeeping: the evidence counter for real work, the todo list
// after todo_write and submit_plan, and the plan after submit_plan.
func (l *turnLoop) record(ctx context.Context, call llm.ToolCall, res tool.Result) error {
	if h := l.e.cfg.resultHook; h != nil && !res.IsError {
		h(call.Name, call.Input, &res)
	}
	planned := !res.IsError && (call.Name == planning.TodoWriteName || call.Name == planning.SubmitPlanName)
	if planned {
		// The todo list changed: save it now rather than only when the
		// loop ends, so a process killed mid-run keeps it. Before the
		// result: a stored success always has its list saved, and a kill
		// in between leaves a call that resuming answers "interrupted",
		// like any tool whose effect happened without a result.
		l.e.st.Save(ctx)
	}
	if len(res.Images) > 0 && !l.e.Vision() {
		// The model cannot see them: say so instead of failing the call.
		for _, im := range res.Images {
			res.Output += fmt.Sprintf("\n%s not shown: the model %s does not accept images.", im.Placeholder(), l.e.cfg.modelLabel)
		}
		res.Images = nil
	}
	msg := llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: res.Output, IsError: res.IsError,
		Images: res.Images}
	if err := l.e.st.Append(ctx, msg); err != nil {
		return err
	}
	l.s.emit(ToolResult{ID: call.ID, Name: call.Name, IsError: res.IsError, Output: res.Output,
		Summary: l.e.summary(call, res), Diff: !res.IsError && l.e.outputIsDiff(call.Name), ExitCode: res.ExitCode,
		Refused: res.Refused})
	if planning.CountsAsEvidence(call.Name, res) {
		l.e.st.RecordEvidence()
	}
	if !planned {
		return nil
	}
	l.s.emit(Todos{Items: l.e.st.Todos()})
	if call.Name == planning.SubmitPlanName {
		if p := l.e.Plan(); p != nil {
			l.s.emit(PlanSubmitted{Plan: *p})
		}
	}
	return nil
}
