package agent

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

// The step functions cut the run loop into the pieces a durable workflow
// schedules one at a time (package durable): add a prompt, call the model
// once, run the tool calls of the last assistant message, approve a plan,
// record how an execution ended. Each step loads the session's state from
// the store, does its piece exactly as the loop does it, and saves the state
// again, so consecutive steps may run on fresh engines in other processes.
// The loop itself (Run, Approve, Continue) is unchanged and does not use
// them; the deciding — how many turns, when to stop, the auto-execution
// rounds — is left to the caller.

// StepResult is what one step did.
type StepResult struct {
	// Events are what the step reported, in order, without the deltas of
	// streamed text (whole messages are reported as Text).
	Events []Event
	// Calls is the number of tool calls the assistant message of a
	// StepModel makes; 0 means the loop ends with Status.
	Calls int
	// Status is set when the loop ends with this step: RunCompleted or
	// RunAwaitingApproval. "" means the loop goes on.
	Status RunStatus
	// Todos is the todo list after the step: what a caller counts to
	// decide whether execution progresses.
	Todos []planning.TodoItem
	// HistoryLen is the number of messages in the history after the step.
	HistoryLen int
}

// SessionTitle is the title a session started with prompt gets: the
// prompt's first non-empty line, capped.
func SessionTitle(prompt string) string { return title(prompt) }

// step runs fn with the engine's single-run lock held and a stream that
// collects events. Approval requests are refused: nobody is at a terminal
// where a step runs.
func (e *Engine) step(ctx context.Context, mode planning.Mode, fn func(ctx context.Context, l *turnLoop, r *StepResult) error) (r StepResult, err error) {
	if !e.busy.CompareAndSwap(false, true) {
		return r, ErrBusy
	}
	defer e.busy.Store(false)
	if e.SessionID() == "" {
		return r, errors.New("agent: a step needs a stored session (WithSession)")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &stream{cancel: cancel, yield: func(ev Event) bool {
		switch ev := ev.(type) {
		case TextDelta, ReasoningDelta:
		case *ApprovalRequest:
			ev.Respond(Refuse, stepRefusal(ev))
		default:
			r.Events = append(r.Events, ev)
		}
		return true
	}}
	l := e.enter(ctx, s, mode, runState{})
	defer func() {
		if p := recover(); p != nil {
			e.log.Error("agent: panic in a step", "panic", p, "stack", string(debug.Stack()))
			err = fmt.Errorf("agent: internal error: %v", p)
		}
		e.leave(ctx)
		r = e.progress(r)
	}()
	err = fn(ctx, l, &r)
	return r, err
}

// stepRefusal is what the model sees for a call that needed someone's yes.
func stepRefusal(req *ApprovalRequest) string {
	msg := fmt.Sprintf("refused: %s needs the user's permission (%s), and nobody can be asked while a durable workflow runs", req.Call.Name, req.Why)
	if len(req.Rules) > 0 {
		msg += "; the user can allow it with --allow '" + strings.Join(req.Rules, "' --allow '") + "'"
	}
	return msg
}

// StepPrompt starts a run in mode: it reports SessionStarted and stores the
// prompt (wrapped in Plan Mode's instructions in Plan mode), answering any
// tool call an interrupted run left without a result first. after is the
// history length the caller saw before this step: when a user message
// with this prompt was stored at or after it (an earlier attempt of this
// step stored it and then died), it is not stored again.
func (e *Engine) StepPrompt(ctx context.Context, mode planning.Mode, prompt string, after int) (StepResult, error) {
	return e.stepPrompt(ctx, mode, prompt, after, false)
}

// StepUserPrompt is StepPrompt for a prompt the user gave (not a round of
// execution's): first, as a local run does, the session_start hooks run
// (source "startup" when the session has no messages yet, else "resume")
// and then the user_prompt_submit hooks. A blocking user_prompt_submit
// hook stores nothing and ends the loop with RunError. A retried step
// whose prompt is already stored runs no hook again.
func (e *Engine) StepUserPrompt(ctx context.Context, mode planning.Mode, prompt string, after int) (StepResult, error) {
	return e.stepPrompt(ctx, mode, prompt, after, true)
}

func (e *Engine) stepPrompt(ctx context.Context, mode planning.Mode, prompt string, after int, user bool) (StepResult, error) {
	e.st.SetMode(mode)
	e.st.SyncMode(ctx)
	return e.step(ctx, mode, func(ctx context.Context, l *turnLoop, r *StepResult) error {
		l.s.emit(e.startedIn(mode))
		wrapped := planning.PolicyFor(mode).PromptPrefix + prompt
		if e.storedPrompt(after, wrapped) {
			return nil
		}
		if user && e.cfg.hooks != nil {
			if e.hookStarted.CompareAndSwap(false, true) {
				source := "resume"
				if after == 0 {
					source = "startup"
				}
				e.runHooks(ctx, l.s, mode, hook.Event{Name: hook.SessionStart, Source: source})
			}
			if out := e.runHooks(ctx, l.s, mode, hook.Event{Name: hook.UserPromptSubmit, Prompt: prompt}); out.Blocked {
				l.s.emit(Error{Message: "the prompt was not sent: the user_prompt_submit hook blocked it: " + out.Reason})
				r.Status = RunError
				return nil
			}
		}
		return l.addPrompt(ctx, userPrompt{text: prompt})
	})
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

// StepModel makes one model call in mode (compacting first when the
// context is full) and stores the assistant message. after is the history
// length the caller saw before this step: when the history already holds an
// assistant message at that index (an earlier attempt of this step stored
// it and then died), that message is used and the model is not called
// again. A message without tool calls ends the loop; in Plan mode with
// active todos that submits the fallback plan.
func (e *Engine) StepModel(ctx context.Context, mode planning.Mode, after int) (StepResult, error) {
	return e.step(ctx, mode, func(ctx context.Context, l *turnLoop, r *StepResult) error {
		msg, ok := e.storedAnswer(after)
		if !ok {
			if err := l.maybeCompact(ctx); err != nil {
				e.log.Warn("agent: compaction failed; continuing with the full history", "err", err)
			}
			resp, err := l.callModel(ctx, l.request())
			if err != nil && ctx.Err() != nil {
				_, err = l.modelFailed(ctx, resp, err) // keeps the partial answer, like a cancelled run
				return err
			}
			if err != nil {
				// Nothing is stored: a retried step must not take a
				// partial answer for the model's reply.
				return fmt.Errorf("agent: the model call failed: %w", err)
			}
			if err := e.st.Append(ctx, resp.Message); err != nil {
				return err
			}
			msg = resp.Message
		} else if msg.Content != "" {
			l.text = msg.Content
			l.s.emit(Text{Text: msg.Content})
		}
		r.Calls = len(msg.ToolCalls)
		if r.Calls == 0 {
			if e.stopNoted(after) {
				return nil // an earlier attempt's stop hook blocked: the loop goes on
			}
			l.stopActive = e.stopHookActive()
			goOn, err := l.stopHooks(ctx)
			if err != nil {
				return err
			}
			if goOn && ctx.Err() == nil {
				return nil // Status "": the loop goes on with the hook's reason
			}
			r.Status = l.finish()
		}
		return nil
	})
}

// stopNoted reports whether a stop hook's note follows the answer at
// index after.
func (e *Engine) stopNoted(after int) (noted bool) {
	e.st.Read(func(history []llm.Message) {
		i := after + 1
		noted = after > 0 && i < len(history) && history[i].Role == llm.RoleUser && strings.HasPrefix(history[i].Content, stopHookNote)
	})
	return noted
}

// stopHookActive reports whether the loop goes on because a stop hook
// blocked (the latest user message is a stop hook's note), as the local
// loop's stopActive does across the fresh engines of steps.
func (e *Engine) stopHookActive() (active bool) {
	e.st.Read(func(history []llm.Message) {
		for i := len(history) - 1; i >= 0; i-- {
			if history[i].Role == llm.RoleUser {
				active = strings.HasPrefix(history[i].Content, stopHookNote)
				return
			}
		}
	})
	return active
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

// StepTools runs the tool calls of the last assistant message in mode and
// stores their results. A call whose result is already stored is not run
// again: a step retried after its process died repeats only the call that
// was in flight. It ends the loop (Status) when a call ended the turn
// (submit_plan).
func (e *Engine) StepTools(ctx context.Context, mode planning.Mode) (StepResult, error) {
	e.st.Reload(ctx)
	if len(e.pendingCalls()) == 0 {
		// Every call is answered: an earlier attempt ran them all and
		// died before reporting. A plan it submitted is in the store.
		var r StepResult
		if e.Status() == planning.StatusAwaitingApproval {
			r.Status = RunAwaitingApproval
		}
		return e.progress(r), nil
	}
	return e.step(ctx, mode, func(ctx context.Context, l *turnLoop, r *StepResult) error {
		end, err := l.runTools(ctx, e.pendingCalls())
		switch {
		case err != nil:
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		case end && e.Status() == planning.StatusAwaitingApproval:
			r.Status = RunAwaitingApproval
		case end:
			r.Status = RunCompleted
		}
		return nil
	})
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

// StepApprove approves the plan awaiting approval for execution in mode:
// it creates the task directory (when the engine keeps plan files) and
// reports SessionStarted and Approved. The rounds of execution are the
// caller's: StepPrompt with planning.ExecPrompt, then model and tool
// steps, then StepComplete.
func (e *Engine) StepApprove(ctx context.Context, mode planning.Mode) (StepResult, error) {
	var r StepResult
	if err := planning.CheckExecMode(mode); err != nil {
		return r, fmt.Errorf("agent: %w", err)
	}
	if !e.busy.CompareAndSwap(false, true) {
		return r, ErrBusy
	}
	defer e.busy.Store(false)
	e.st.Reload(ctx)
	if e.st.Status() == planning.StatusExecuting && e.st.Plan() != nil {
		// An earlier attempt approved it and then died: approving is done.
		r.Events = append(r.Events, e.startedIn(mode), Approved{TaskDir: e.TaskDir()})
		return e.progress(r), nil
	}
	plan, err := e.pendingPlan()
	if err != nil {
		return r, err
	}
	dir, err := e.approvePlan(ctx, mode, plan)
	if err != nil {
		return r, err
	}
	r.Events = append(r.Events, e.startedIn(mode), Approved{TaskDir: dir})
	return e.progress(r), nil
}

// StepComplete records how the execution of an approved plan ended. It is
// a no-op when the outcome is already recorded.
func (e *Engine) StepComplete(ctx context.Context, outcome planning.ExecOutcome) error {
	if !e.busy.CompareAndSwap(false, true) {
		return ErrBusy
	}
	defer e.busy.Store(false)
	e.st.Reload(ctx)
	if e.st.Status() != planning.StatusExecuting {
		return nil
	}
	if err := e.st.Complete(ctx, outcome); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	return nil
}

func (e *Engine) progress(r StepResult) StepResult {
	r.Todos = e.st.Todos()
	r.HistoryLen = e.st.Len()
	return r
}
