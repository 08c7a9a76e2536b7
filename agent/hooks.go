package agent

import (
	"context"
	"encoding/json"

	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
)

// Hooks runs the commands configured for an event (package hook's Runner
// is one). The engine calls it at session start, when a prompt is
// submitted, before and after each tool call the permission layer lets
// through, and when the model stops calling tools. The context carries the
// run's sandbox policy (sandbox.ContextWithPolicy).
type Hooks interface {
	Run(ctx context.Context, ev hook.Event) hook.Outcome
}

// WithHooks installs h. A pre_tool_use hook that blocks turns the call
// into an error result carrying the hook's reason, so the model sees why
// and can work around it; a user_prompt_submit hook that blocks ends the
// run before the prompt reaches the model; a stop hook that blocks sends
// its reason to the model, which goes on (within the turn limit). Hook
// failures are reported as HookReport events and change nothing else.
func WithHooks(h Hooks) Option { return func(c *config) { c.hooks = h } }

// HookReport tells the user about a hook that blocked something or failed.
type HookReport struct {
	Event   string // pre_tool_use, post_tool_use, ...
	Hook    string // the hook's command and where it was configured
	Blocked bool   // it exited with status 2; Message is its stderr
	Message string
}

// Type implements Event.
func (HookReport) Type() string { return "hook" }

// runHooks runs the hooks of ev under the sandbox policy of mode and
// reports what blocked or failed.
func (e *Engine) runHooks(ctx context.Context, s *stream, mode planning.Mode, ev hook.Event) hook.Outcome {
	if e.cfg.hooks == nil {
		return hook.Outcome{}
	}
	ev.SessionID = e.SessionID()
	ev.Cwd = e.cfg.workdir
	ev.PermissionMode = mode.String()
	out := e.cfg.hooks.Run(sandbox.ContextWithPolicy(ctx, planning.PolicyFor(mode).Sandbox), ev)
	for _, f := range out.Failures {
		s.emit(HookReport{Event: string(ev.Name), Hook: f.Hook.Label(), Message: f.Message})
	}
	if out.Blocked {
		s.emit(HookReport{Event: string(ev.Name), Hook: out.By.Label(), Blocked: true, Message: out.Reason})
	}
	return out
}

// sessionStartHooks runs the session_start hooks, before the first loop
// (the driver remembers that they ran): source "startup" for a session with
// no messages yet (history holds after), else "resume".
func (e *Engine) sessionStartHooks(ctx context.Context, s *stream, mode planning.Mode, history int) {
	if e.cfg.hooks == nil {
		return
	}
	source := "startup"
	if history > 0 {
		source = "resume"
	}
	e.runHooks(ctx, s, mode, hook.Event{Name: hook.SessionStart, Source: source})
}

// preToolUse runs the pre_tool_use hooks of a call the registry would run.
// ok is false when a hook blocked it; res is then what the model sees.
// Calls the registry refuses anyway (unknown tool, malformed input, the
// mode's gate, a deny rule) run no hook.
func (l *turnLoop) preToolUse(ctx context.Context, call llm.ToolCall) (res tool.Result, ok bool) {
	if l.e.cfg.hooks == nil {
		return res, true
	}
	t, found := l.e.registry.Lookup(call.Name)
	if !found || !json.Valid(call.Input) || (l.gate != nil && l.gate.Check(call.Name, call.Input) != nil) {
		return res, true
	}
	out := l.e.runHooks(ctx, l.s, l.mode, hook.Event{Name: hook.PreToolUse, ToolName: call.Name,
		ToolInput: call.Input, ToolUseID: call.ID, Call: permissionCall(t, call)})
	if !out.Blocked {
		return res, true
	}
	return tool.Errorf("%s was blocked by the user's pre_tool_use hook: %s", call.Name, out.Reason), false
}

// postToolUse runs the post_tool_use hooks of a call that ran. A hook
// that exits 2 cannot undo the call; its reason is added to the result so
// the model sees it.
func (l *turnLoop) postToolUse(ctx context.Context, call llm.ToolCall, res *tool.Result) {
	if l.e.cfg.hooks == nil {
		return
	}
	t, found := l.e.registry.Lookup(call.Name)
	if !found {
		return
	}
	input := call.Input
	if !json.Valid(input) {
		input = nil
	}
	out := l.e.runHooks(ctx, l.s, l.mode, hook.Event{Name: hook.PostToolUse, ToolName: call.Name, ToolInput: input,
		ToolUseID: call.ID, Call: permissionCall(t, call), ToolResponse: &hook.ToolResponse{Output: res.Output, IsError: res.IsError}})
	if out.Blocked {
		res.Output += "\n\nThe user's post_tool_use hook objected: " + out.Reason
	}
}

// StopHookNote begins the message a blocking stop hook adds to the
// history; what follows it is the hook's reason.
const StopHookNote = "The user's stop hook asks you to go on before stopping:\n\n"

// stopHooks runs the stop hooks when the model has stopped calling tools.
// It reports whether a hook blocked the stop; its reason is then added to
// the conversation and the loop goes on.
func (l *turnLoop) stopHooks(ctx context.Context) (goOn bool, err error) {
	if l.e.cfg.hooks == nil {
		return false, nil
	}
	out := l.e.runHooks(ctx, l.s, l.mode, hook.Event{Name: hook.Stop, StopHookActive: l.stopActive})
	if !out.Blocked {
		return false, nil
	}
	l.stopActive = true
	msg := llm.Message{Role: llm.RoleUser, Content: StopHookNote + out.Reason}
	return true, l.e.st.Append(ctx, msg)
}
