package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/harness9/harness9/agent/internal/sessionstate"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/internal/lib/driver"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// The planning workflow — turn loop, review, execution rounds, stall stop
// — is the driver's (internal/driver), the same for the local engine and
// the durable one. What the engine does is carry out its steps: store a
// prompt, call the model, run the tools of its answer, approve, continue,
// cancel, complete. engineSteps is that, on this engine, for both hosts:
// the local one (Run, Approve, Continue, Review) keeps one loop open across
// the steps of a loop; the durable one (hosted.go) opens a fresh engine for
// every step, which then reloads the session and closes its loop again.
// What a loop must remember from step to step and the store does not hold
// comes in the driver's Loop, so both decide alike.
type engineSteps struct {
	e  *Engine
	s  *stream
	rs runState  // the public call's options (RunWith)
	cl *turnLoop // the loop in progress; nil between loops
	// retried: a step may be a retry of one whose work is stored (the
	// durable host retries a step whose worker died). Work found stored is
	// taken as done, and a failed model call stores no partial answer (a
	// retry would take it for the answer).
	retried bool
}

// open returns the loop in progress, entering one in l's mode when there
// is none. The loop's prompt step learns whether it revises a plan; later
// steps take that from l.
func (x *engineSteps) open(ctx context.Context, l *driver.Loop, prompt bool) *turnLoop {
	if x.cl == nil {
		x.cl = x.e.enter(ctx, x.s, l.Mode, x.rs)
		if !prompt {
			x.cl.refining = l.Refining
		}
		x.cl.stopActive = l.StopActive
	}
	l.Refining = x.cl.refining
	return x.cl
}

// End implements driver.Steps: the loop's status is settled and the
// planning state saved.
func (x *engineSteps) End(ctx context.Context, _ *driver.Loop) {
	if x.cl != nil {
		x.cl = nil
		x.e.leave(ctx)
	}
}

// result reports the session as a step left it; end ends the loop.
func (x *engineSteps) result(end RunStatus) driver.Result {
	e := x.e
	return driver.Result{End: driver.Status(end), Phase: e.Status(), Todos: e.st.Todos(), HistoryLen: e.st.Len()}
}

// frame is the prompt a loop in mode stores: the mode's prefix before the
// user's words. A read-only sub-agent runs under Plan Mode's gate but has
// no plan to submit: its prompt is the parent's task, as given.
func (e *Engine) frame(mode planning.Mode, prompt string) string {
	if e.isChild() {
		return prompt
	}
	return planning.PolicyFor(mode).PromptPrefix + prompt
}

// Prompt implements driver.Steps. A prompt found stored at or after
// l.After (an earlier attempt stored it) is not stored again and runs no
// hook again.
func (x *engineSteps) Prompt(ctx context.Context, l *driver.Loop, prompt string) (driver.Result, error) {
	e := x.e
	e.st.SetMode(l.Mode)
	if err := e.ensureSession(ctx, prompt); err != nil {
		return driver.Result{}, err
	}
	if l.User && !x.s.emit(e.startedIn(l.Mode)) {
		return x.result(RunCancelled), context.Canceled
	}
	stored := e.storedPrompt(l.After, e.frame(l.Mode, prompt))
	if !stored {
		if !l.Memo.HooksStarted {
			e.sessionStartHooks(ctx, x.s, l.Mode, l.After)
		}
		l.Memo.HooksStarted = true
		if l.User {
			if out := e.runHooks(ctx, x.s, l.Mode, hook.Event{Name: hook.UserPromptSubmit, Prompt: prompt}); out.Blocked {
				return x.result(RunError), fmt.Errorf("%w: the user_prompt_submit hook blocked it: %s", ErrPromptBlocked, out.Reason)
			}
		}
	}
	cl := x.open(ctx, l, true)
	if !stored {
		if err := cl.addPrompt(ctx, userPrompt{prompt, x.rs.images}); err != nil {
			return driver.Result{}, err
		}
	}
	return x.result(""), nil
}

// storedPrompt reports whether a user message with content is stored at
// index after or later.
func (e *Engine) storedPrompt(after int, content string) (found bool) {
	e.st.Read(func(history []llm.Message) {
		for i := max(after, 0); i < len(history) && !found; i++ {
			found = history[i].Role == llm.RoleUser && history[i].Content == content
		}
	})
	return found
}

// Model implements driver.Steps: one model call (compacting first when
// the context calls for it), its answer stored. An answer already stored at
// l.After (an earlier attempt's) is taken instead of calling the model
// again. An answer without tool calls runs the stop hooks and ends the
// loop; in a mode that plans, with active todos, that submits the fallback
// plan.
func (x *engineSteps) Model(ctx context.Context, l *driver.Loop) (driver.Result, error) {
	e := x.e
	cl := x.open(ctx, l, false)
	msg, ok := e.storedAnswer(l.After)
	if ok {
		if msg.Content != "" {
			cl.text = msg.Content
			x.s.emit(Text{Text: msg.Content})
		}
	} else {
		e.st.SetUsage(sessionstate.UsageMark(l.Memo.Usage))
		cl.syncTools()
		if err := cl.maybeCompact(ctx); err != nil {
			return x.result(RunError), err // no compaction can help: retrying cannot either
		}
		resp, err := cl.callModel(ctx, cl.request())
		if err != nil && x.retried && ctx.Err() == nil {
			// Nothing is stored: a retried step must not take a partial
			// answer for the model's reply.
			return driver.Result{}, fmt.Errorf("agent: the model call failed: %w", err)
		}
		if err != nil {
			status, err := cl.modelFailed(ctx, resp, err)
			return x.result(status), err
		}
		if err := e.st.Append(ctx, resp.Message); err != nil {
			return driver.Result{}, err
		}
		l.Memo.Usage = driver.Usage(e.st.Usage())
		msg = resp.Message
	}
	cl.calls = msg.ToolCalls
	r := x.result("")
	if r.Calls = len(msg.ToolCalls); r.Calls > 0 {
		return r, nil
	}
	if x.retried && e.stopNoted(l.After) {
		return r, nil // an earlier attempt's stop hook blocked: the loop goes on
	}
	goOn, err := cl.stopHooks(ctx)
	l.StopActive = cl.stopActive
	if err != nil {
		return driver.Result{}, err
	}
	if goOn && ctx.Err() == nil {
		return x.result(""), nil
	}
	return x.result(cl.finish()), nil
}

// storedAnswer returns the assistant message at index after, if there is one.
func (e *Engine) storedAnswer(after int) (msg llm.Message, ok bool) {
	e.st.Read(func(history []llm.Message) {
		if ok = after > 0 && after < len(history) && history[after].Role == llm.RoleAssistant; ok {
			msg = history[after]
		}
	})
	return msg, ok
}

// stopNoted reports whether a stop hook's note follows the answer at
// index after.
func (e *Engine) stopNoted(after int) (noted bool) {
	e.st.Read(func(history []llm.Message) {
		i := after + 1
		noted = after > 0 && i < len(history) && history[i].Role == llm.RoleUser && strings.HasPrefix(history[i].Content, StopHookNote)
	})
	return noted
}

// Tools implements driver.Steps: the calls of the last answer that have no
// stored result run, and their results are stored. A call whose result is
// stored is not run again: a step retried after its process died repeats
// only the call that was in flight, and a step run again with the answer
// to its question (l.Answers) goes on from the call that asked. It ends the
// loop when a call ended the turn (submit_plan).
func (x *engineSteps) Tools(ctx context.Context, l *driver.Loop) (driver.Result, error) {
	e := x.e
	var calls []llm.ToolCall
	if x.cl != nil {
		calls = x.cl.calls // the answer this loop just stored: none has a result yet
	} else {
		e.st.Reload(ctx)
		calls = e.pendingCalls()
	}
	if len(calls) == 0 {
		// Every call is answered: an earlier attempt ran them all and
		// died before reporting. A plan it submitted is in the store.
		if e.Status() == planning.StatusAwaitingApproval {
			return x.result(RunAwaitingApproval), nil
		}
		return x.result(""), nil
	}
	cl := x.open(ctx, l, false)
	cl.calls, cl.answers, cl.asked = nil, l.Answers, false
	end, err := cl.runTools(ctx, calls)
	switch {
	case err != nil:
		return driver.Result{}, err
	case cl.asked:
		return x.result(""), nil // a question waits: the host asks it and runs the step again
	case ctx.Err() != nil:
		return x.result(RunCancelled), ctx.Err()
	case end && e.Status() == planning.StatusAwaitingApproval:
		return x.result(RunAwaitingApproval), nil
	case end:
		return x.result(RunCompleted), nil
	}
	return x.result(""), nil
}

// pendingCalls returns the calls of the last assistant message that have no
// stored result.
func (e *Engine) pendingCalls() (pending []llm.ToolCall) {
	e.st.Read(func(history []llm.Message) {
		last := -1
		for i := len(history) - 1; i >= 0; i-- {
			if history[i].Role == llm.RoleAssistant {
				last = i
				break
			}
		}
		for _, b := range bindResults(history) {
			if b.at == last && b.result < 0 {
				pending = append(pending, b.call)
			}
		}
	})
	return pending
}

// Approve implements driver.Steps: the plan awaiting approval is approved
// for execution in mode, with its task directory when the engine keeps
// plan files. The stream reports the mode the execution runs in, not the
// Plan mode the plan was made in.
func (x *engineSteps) Approve(ctx context.Context, mode planning.Mode) (driver.Result, error) {
	e := x.e
	if err := planning.CheckExecMode(mode); err != nil {
		return driver.Result{}, fmt.Errorf("agent: %w", err)
	}
	e.st.Reload(ctx)
	if x.retried && e.st.Status() == planning.StatusExecuting && e.st.Plan() != nil {
		// An earlier attempt approved it and then died: approving is done.
		x.s.emit(e.startedIn(mode))
		x.s.emit(Approved{TaskDir: e.TaskDir()})
		return x.approved(mode), nil
	}
	plan, err := e.pendingPlan()
	if err != nil {
		return driver.Result{}, err
	}
	if !x.s.emit(e.startedIn(mode)) {
		return x.result(RunCancelled), context.Canceled
	}
	dir, err := e.approvePlan(ctx, mode, plan)
	if err != nil {
		return driver.Result{}, err
	}
	if !x.s.emit(Approved{TaskDir: dir}) {
		return x.result(RunCancelled), context.Canceled
	}
	return x.approved(mode), nil
}

func (x *engineSteps) approved(mode planning.Mode) driver.Result {
	r := x.result("")
	r.Mode = mode
	return r
}

// Continue implements driver.Steps: the approved plan resumes executing,
// in the mode it was approved for (or the session's, unless that is Plan).
func (x *engineSteps) Continue(ctx context.Context) (driver.Result, error) {
	e := x.e
	e.st.Reload(ctx)
	if status, err := e.st.Continue(ctx); err != nil {
		if status == planning.StatusAwaitingApproval {
			return driver.Result{}, fmt.Errorf("%w: the plan has not been approved yet (approve it first)", ErrNothingToContinue)
		}
		return driver.Result{}, fmt.Errorf("%w (status: %s)", ErrNothingToContinue, status)
	}
	if !x.s.emit(e.started()) {
		return x.result(RunCancelled), context.Canceled
	}
	return x.approved(e.Mode()), nil
}

// Cancel implements driver.Steps: the plan awaiting approval (or a stalled
// one) and its todo list are dropped; the status returns to idle.
func (x *engineSteps) Cancel(ctx context.Context) (driver.Result, error) {
	e := x.e
	if status, err := e.st.Cancel(ctx); err != nil {
		if x.retried && status == planning.StatusIdle {
			return x.result(""), nil // an earlier attempt cancelled it
		}
		return driver.Result{}, fmt.Errorf("%w (status: %s)", ErrNoPendingPlan, status)
	}
	return x.result(""), nil
}

// Complete implements driver.Steps: how the execution ended is recorded.
func (x *engineSteps) Complete(ctx context.Context, outcome planning.ExecOutcome) (driver.Result, error) {
	e := x.e
	if x.retried && e.st.Status() != planning.StatusExecuting {
		return x.result(""), nil // an earlier attempt recorded it
	}
	if err := e.st.Complete(ctx, outcome); err != nil {
		return driver.Result{}, fmt.Errorf("agent: %w", err)
	}
	return x.result(""), nil
}

// SetMode implements driver.Steps.
func (x *engineSteps) SetMode(_ context.Context, mode planning.Mode) { x.e.SetMode(mode) }

// RoundMode implements driver.Steps: a round runs in the session's mode,
// which approving or continuing set to the plan's and SetMode may change
// between rounds.
func (x *engineSteps) RoundMode(context.Context, planning.Mode) planning.Mode { return x.e.Mode() }
