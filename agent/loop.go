package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/harness9/harness9/internal/lib/driver"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool"
)

// Run sends prompt to the model and runs the loop until the model stops
// calling tools, the turn limit is reached, the run is cancelled or fails.
// The stream starts with SessionStarted and ends with Done. In Plan mode the
// prompt is wrapped in planning's Plan-Mode instructions and a submitted
// plan ends the run with RunAwaitingApproval.
func (e *Engine) Run(ctx context.Context, prompt string) iter.Seq[Event] {
	return e.run(ctx, prompt, runState{})
}

func (e *Engine) run(ctx context.Context, prompt string, rs runState) iter.Seq[Event] {
	return e.serve(ctx, func(ctx context.Context, s *stream) (RunStatus, error) {
		if len(rs.images) > 0 && !e.Vision() {
			return RunError, fmt.Errorf("%w: %s (set vision = true for its provider in config.toml if it does)", ErrNoVision, e.cfg.modelLabel)
		}
		// The mode is snapshotted once: SetMode from another goroutine
		// does not change the tools of a loop already running (seed 000).
		mode := e.Mode()
		return e.drive(s, rs, func(d *driver.Driver) (driver.Status, error) {
			return d.Run(ctx, mode, prompt, true)
		})
	})
}

// drive runs fn with the planning driver over this engine's steps, for one
// public call: the driver's loop, review and execution rounds are the same
// the durable engine runs (internal/driver). What the engine remembers
// across loops outlives the call.
func (e *Engine) drive(s *stream, rs runState, fn func(d *driver.Driver) (driver.Status, error)) (RunStatus, error) {
	d := driver.New(&engineSteps{e: e, s: s, rs: rs}, execObserver{s},
		driver.WithLimits(driver.Limits{MaxTurns: e.cfg.maxTurns, StallThreshold: e.cfg.stallThreshold, MaxRounds: e.cfg.maxExecRounds}),
		driver.WithState(driver.State{HistoryLen: e.st.Len(), Memo: e.memo}))
	defer func() { e.memo = d.State().Memo }()
	status, err := fn(d)
	return RunStatus(status), err
}

// ErrNoVision is the error of a run that attaches images (RunOptions.Images)
// for a model that cannot see them.
var ErrNoVision = errors.New("the model does not accept images")

// userPrompt is what a run starts from: the user's text and pictures.
type userPrompt struct {
	text   string
	images []llm.Image
}

// Vision reports whether the engine's model accepts images.
func (e *Engine) Vision() bool { return *e.cfg.vision }

// turnLoop is the state of one run loop the engine keeps while it is open:
// the mode and tools it snapshotted at entry and the stream it reports to.
// What must outlive a step (a durable host runs each on a fresh engine)
// is the driver's Loop, not this.
type turnLoop struct {
	e      *Engine
	s      *stream
	mode   planning.Mode
	policy planning.Policy // what mode means (planning's mode table)
	gate   tool.Gate
	defs   []llm.ToolDef
	// restrict is the run's allowed-tools list, nil for none.
	restrict *restriction
	model    string     // the model name sent for this run
	effort   llm.Effort // the reasoning effort asked for, fixed at entry
	text     string     // the last assistant text, for a fallback plan's title
	system   string     // the system prompt, fixed at entry
	// refining: the loop started with a plan awaiting approval (the user
	// chose "keep refining"), so a fallback plan keeps its title.
	refining bool
	// stopActive: a stop hook blocked an earlier stop of this loop.
	stopActive bool
	// shape: how much of the history earlier calls found well formed.
	shape shapeMemo
	// images: the oldest images left out of requests that would carry too many.
	images imageBudget
	// calls: the tool calls of the answer just stored, none run yet.
	calls []llm.ToolCall
	// answers: the user's answers the host was given for calls of this
	// step (driver.Loop.Answers); asked: a call waits for one, and the
	// step stopped before it (a host that cannot wait, driver.Hosted).
	answers map[string]driver.Answer
	asked   bool
}

// enter fixes the loop's tools for its mode, reloads planning state from
// the store and marks the session running.
func (e *Engine) enter(ctx context.Context, s *stream, mode planning.Mode, rs runState) *turnLoop {
	refining, err := e.st.StartRun(ctx)
	if err != nil {
		// Only a status no run can start from (another process's Running
		// would have been restored as Idle) gets here; the run goes on and
		// the status stays what it was.
		e.log.WarnContext(ctx, "agent: the planning workflow refused to start a run", "err", err)
	}
	e.syncTools()
	model := e.cfg.model
	if rs.model != "" {
		model = rs.model
	}
	l := &turnLoop{e: e, s: s, mode: mode, policy: planning.PolicyFor(mode), restrict: rs.restrict, refining: refining,
		images: imageBudget{max: e.cfg.requestImages, maxBytes: e.cfg.requestImageBytes},
		model:  model, effort: e.Effort(), system: e.systemPrompt()}
	l.fixTools()
	return l
}

// systemPrompt is the system prompt of a loop starting now.
func (e *Engine) systemPrompt() string {
	if e.cfg.systemFunc != nil {
		if s := e.cfg.systemFunc(); s != "" {
			return s
		}
	}
	return e.cfg.system
}

// fixTools sets the loop's gate and the tool definitions it sends: the
// mode's gate, the user's deny rules, the run's allowed tools.
func (l *turnLoop) fixTools() {
	l.gate = l.e.withDenyRules(l.e.gateFor(l.mode))
	if l.restrict != nil {
		l.gate = restrictGate{Gate: l.gate, e: l.e, r: l.restrict}
	}
	l.defs = l.e.registry.Definitions(l.gate)
}

// syncTools takes a tool source's changed tools between two model calls.
func (l *turnLoop) syncTools() {
	if l.e.syncTools() {
		l.fixTools()
	}
}

// leave settles the status of a loop that ended without submitting a plan
// and saves the planning state.
func (e *Engine) leave(ctx context.Context) {
	if err := e.st.FinishRun(ctx); err != nil {
		e.log.WarnContext(ctx, "agent: the planning workflow refused to end a run", "err", err)
	}
}

// addPrompt appends the user's prompt (framed by the mode) before the
// first model call, so a failure later loses nothing.
func (l *turnLoop) addPrompt(ctx context.Context, prompt userPrompt) error {
	l.e.beginTurn(ctx, prompt.text, l.mode)
	if err := l.e.repairHistory(ctx); err != nil {
		return err
	}
	return l.e.st.Append(ctx, llm.Message{Role: llm.RoleUser, Content: l.e.frame(l.mode, prompt.text), Images: prompt.images})
}

// request builds the next model call from the effective history, in the
// shape providers accept whatever order the store holds (requestHistory).
// It promises the provider the messages its previous request sent and
// nothing has written since (llm.Request.Unchanged), so that the call
// costs what the turn added, not the length of the history.
func (l *turnLoop) request() llm.Request {
	msgs, untouched := l.images.request(l.shape.requestHistory(l.e.st.Effective()))
	return llm.Request{
		Model:     l.model,
		System:    l.system,
		Messages:  msgs,
		Tools:     l.defs,
		Unchanged: l.e.sent.next(msgs, untouched),
		Effort:    l.effort,
	}
}

// sentMemo is the array the engine's previous request sent its messages
// in, and how many. The effective history is never written in place (the
// session state appends; a compaction, a reload or a repair makes a new
// slice), so the messages a request shares with the previous one from the
// same array are unchanged, except those imageBudget rewrote.
type sentMemo struct {
	base *llm.Message
	n    int
}

// next returns what a request sending msgs may promise unchanged, given
// that only its first untouched messages were not written since the
// previous request, and remembers msgs.
func (s *sentMemo) next(msgs []llm.Message, untouched int) int {
	unchanged := 0
	if len(msgs) > 0 && &msgs[0] == s.base {
		unchanged = min(s.n, untouched, len(msgs))
	}
	*s = sentMemo{}
	if len(msgs) > 0 {
		*s = sentMemo{base: &msgs[0], n: len(msgs)}
	}
	return unchanged
}

// streamOnce streams one attempt of a model call, forwarding text and
// reasoning as deltas, and reports the whole message and the usage once it
// completes. On failure the partial response is returned with the error;
// delivered says whether any chunk arrived (a provider retries a call only
// before that).
func (l *turnLoop) streamOnce(ctx context.Context, req llm.Request) (resp llm.Response, delivered bool, err error) {
	var acc llm.Accumulator
	complete := false
	for c, err := range l.e.provider.Stream(ctx, req) {
		if err != nil {
			return acc.Response(), delivered, err
		}
		delivered = true
		acc.Add(c)
		ok := true
		switch c.Kind {
		case llm.ChunkText:
			ok = l.s.emit(TextDelta{Text: c.Text})
		case llm.ChunkReasoning:
			ok = l.s.emit(ReasoningDelta{Text: c.Text})
		case llm.ChunkStop:
			complete = true
		}
		if !ok {
			return acc.Response(), delivered, context.Canceled
		}
	}
	resp = acc.Response()
	if err := ctx.Err(); err != nil && !complete {
		return resp, delivered, err
	}
	if resp.Message.Content != "" {
		l.text = resp.Message.Content
		l.s.emit(Text{Text: resp.Message.Content})
	}
	l.e.st.AddUsage(ctx, l.modelLabel(), callUsage(resp))
	l.s.emit(l.e.usageUpdate(resp.Usage))
	return resp, delivered, nil
}

// modelLabel is the "provider/model" of this run's model calls.
func (l *turnLoop) modelLabel() string {
	if l.model == l.e.cfg.model {
		return l.e.cfg.modelLabel
	}
	return l.e.provider.Name() + "/" + l.model
}

// callUsage is what one model call used, for the usage ledger.
func callUsage(resp llm.Response) session.Usage {
	u := resp.Usage
	return session.Usage{ModelCalls: 1, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens,
		ToolCalls: len(resp.Message.ToolCalls)}
}

// modelFailed ends a loop whose model call failed or was cancelled. A run
// the user cancelled keeps the text already streamed in the history (what
// they saw said); tool calls of an unfinished message are dropped since none
// of them ran. A call that failed stores nothing: half an answer is not the
// model's turn, and a step retried later must not take it for one.
func (l *turnLoop) modelFailed(ctx context.Context, resp llm.Response, err error) (RunStatus, error) {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		partial := resp.Message
		// None of the calls ran, and reasoning blocks are sent back only
		// with the output they led to.
		partial.ToolCalls, partial.ReasoningBlocks = nil, nil
		if partial.Content != "" || partial.Reasoning != "" {
			if perr := l.e.st.Append(ctx, partial); perr != nil {
				l.e.log.WarnContext(ctx, "agent: could not save the partial answer", "err", perr)
			}
		}
		return RunCancelled, err
	}
	return RunError, fmt.Errorf("agent: the model call failed: %w", err)
}

// finish decides how a loop whose model stopped calling tools ends. A Plan
// run that leaves active todos without calling submit_plan has still made a
// plan: it is submitted on the model's behalf (the seeds' fallback).
func (l *turnLoop) finish() RunStatus {
	if !l.policy.Plans || l.e.isChild() || l.e.Status() == planning.StatusAwaitingApproval {
		return RunCompleted
	}
	todos := l.e.st.Todos()
	if _, active, _ := planning.Progress(todos); active == 0 {
		return RunCompleted
	}
	plan := planning.FallbackPlan(todos, l.text)
	if prev := l.e.Plan(); prev != nil && l.refining {
		// A refining run that did not call submit_plan again keeps the
		// plan's title and content; only the steps follow the todo list.
		// A plan already carried out (or stalled) is not being refined.
		plan.Title, plan.Content = prev.Title, prev.Content
	}
	if err := l.e.st.Submit(plan); err != nil {
		l.e.log.Warn("agent: the fallback plan was not submitted", "err", err)
		return RunCompleted
	}
	l.s.emit(PlanSubmitted{Plan: *l.e.Plan()})
	return RunAwaitingApproval
}

// started is the SessionStarted event of the current session.
func (e *Engine) started() SessionStarted { return e.startedIn(e.Mode()) }

func (e *Engine) startedIn(mode planning.Mode) SessionStarted {
	return SessionStarted{SessionID: e.SessionID(), Workdir: e.cfg.workdir, Mode: mode}
}

// SessionTitle is the title a session started with prompt gets: the
// prompt's first non-empty line, capped.
func SessionTitle(prompt string) string { return title(prompt) }

// title derives a session title from the first prompt: its first non-empty
// line, capped.
func title(prompt string) string {
	for line := range strings.Lines(prompt) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		r := []rune(line)
		if len(r) > titleMax {
			return string(r[:titleMax-1]) + "…"
		}
		return line
	}
	return "untitled"
}
