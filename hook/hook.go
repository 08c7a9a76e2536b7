// Package hook runs the user's commands at fixed points of an agent's work
// (before and after a tool call, when a prompt is submitted, when the model
// stops, when a session starts), the way Claude Code's hooks do: the event
// is written as JSON on the command's stdin; exit 0 lets the work go on,
// exit 2 blocks it with the command's stderr as the reason, any other exit
// is a hook failure that is reported and otherwise ignored.
//
// A hook is a command a person wrote, but it runs on the agent's behalf and
// sees what the model chose to do, so it runs like one of the model's own
// commands: inside the kernel sandbox under the policy of the run's mode
// (sandbox.PolicyFromContext), in a session of its own with no terminal,
// with secrets scrubbed from its environment, killed with everything it
// started when its timeout passes. Without a usable sandbox a hook runs
// only when the program says so (WithUnconfined).
package hook

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/harness9/harness9/permission"
)

// Name is an event hooks can be attached to; the value is the key used in
// configuration files.
type Name string

// The events.
const (
	PreToolUse       Name = "pre_tool_use"
	PostToolUse      Name = "post_tool_use"
	UserPromptSubmit Name = "user_prompt_submit"
	Stop             Name = "stop"
	SessionStart     Name = "session_start"
)

// Names lists every event, in the order a session meets them.
var Names = []Name{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop}

// wire is the hook_event_name a command reads: Claude Code's spelling, so
// a script written for its hooks can switch on it unchanged.
func (n Name) wire() string {
	switch n {
	case PreToolUse:
		return "PreToolUse"
	case PostToolUse:
		return "PostToolUse"
	case UserPromptSubmit:
		return "UserPromptSubmit"
	case Stop:
		return "Stop"
	case SessionStart:
		return "SessionStart"
	}
	return string(n)
}

// toolEvent reports whether n concerns one tool call (and so takes a
// matcher).
func (n Name) toolEvent() bool { return n == PreToolUse || n == PostToolUse }

// ParseName reads an event's configuration key.
func ParseName(s string) (Name, error) {
	for _, n := range Names {
		if string(n) == s {
			return n, nil
		}
	}
	return "", fmt.Errorf("%q is not a hook event (want one of pre_tool_use, post_tool_use, user_prompt_submit, stop, session_start)", s)
}

// Event is what happened. It is encoded as the JSON object a hook reads on
// stdin, with Claude Code's field names; fields that do not apply to the
// event are left out.
type Event struct {
	Name           Name            `json:"-"`
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode,omitempty"` // the run's mode: default, plan, auto_edit
	ToolName       string          `json:"tool_name,omitempty"`
	ToolInput      json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID      string          `json:"tool_use_id,omitempty"`
	ToolResponse   *ToolResponse   `json:"tool_response,omitempty"` // post_tool_use
	Prompt         string          `json:"prompt,omitempty"`        // user_prompt_submit
	Source         string          `json:"source,omitempty"`        // session_start: startup or resume
	// StopHookActive is true when the model goes on because a stop hook
	// blocked an earlier stop in this run (a stop hook uses it to avoid
	// keeping the model going forever).
	StopHookActive bool `json:"stop_hook_active,omitempty"`

	// Call is what the tool call acts on, as its tool describes it
	// (tool.Scoped); a matcher's specifier is matched against it.
	Call permission.Call `json:"-"`
}

// ToolResponse is a finished call's result as post_tool_use hooks see it.
type ToolResponse struct {
	Output  string `json:"output"`
	IsError bool   `json:"is_error"`
}

// MarshalJSON adds hook_event_name.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	return json.Marshal(struct {
		HookEventName string `json:"hook_event_name"`
		plain
	}{e.Name.wire(), plain(e)})
}

// DefaultTimeout bounds a hook that sets none.
const DefaultTimeout = 60 * time.Second

// Hook is one configured command.
type Hook struct {
	// Event is when it runs.
	Event Name
	// Matcher limits a tool event's hook to some calls, in permission rule
	// syntax: "write_file", "mcp__github__*", "bash(git push:*)",
	// "edit_file(src/**)". "" or "*" matches every call. A command prefix
	// matches a line when any of its simple commands has that prefix.
	Matcher string
	// Command is run with bash -c in the workdir.
	Command string
	// Timeout ends the command (and everything it started); 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// Source says where the hook was configured, for messages.
	Source string
}

// Label names the hook for people: its command, shortened, and where it
// was configured.
func (h Hook) Label() string {
	cmd := []rune(h.Command)
	if len(cmd) > 60 {
		cmd = append(cmd[:59], '…')
	}
	if h.Source == "" {
		return fmt.Sprintf("%s hook %q", h.Event, string(cmd))
	}
	return fmt.Sprintf("%s hook %q (%s)", h.Event, string(cmd), h.Source)
}

// compiled is a hook ready to run.
type compiled struct {
	Hook
	match *permission.Rules // nil: every call
}

// compile checks h and parses its matcher; workdir anchors path globs.
func compile(h Hook, workdir string) (compiled, error) {
	if _, err := ParseName(string(h.Event)); err != nil {
		return compiled{}, fmt.Errorf("%s: %w", h.Source, err)
	}
	if h.Command == "" {
		return compiled{}, fmt.Errorf("%s: a %s hook needs a command", h.Source, h.Event)
	}
	if h.Timeout < 0 {
		return compiled{}, fmt.Errorf("%s: the timeout of %s must not be negative", h.Source, h.Label())
	}
	if h.Timeout == 0 {
		h.Timeout = DefaultTimeout
	}
	c := compiled{Hook: h}
	if h.Matcher == "" || h.Matcher == "*" {
		return c, nil
	}
	if !h.Event.toolEvent() {
		return compiled{}, fmt.Errorf("%s: a matcher applies only to pre_tool_use and post_tool_use hooks, not %s", h.Source, h.Event)
	}
	// The matcher is held as a deny rule only for its matching: a deny
	// rule with a command prefix covers a line when any of its simple
	// commands has the prefix, which is what a hook that guards "git
	// push" needs.
	c.match = permission.New(workdir)
	if err := c.match.Add(permission.Deny, h.Source, h.Matcher); err != nil {
		return compiled{}, fmt.Errorf("matcher of %s: %w", h.Label(), err)
	}
	return c, nil
}

// matches reports whether the hook runs for ev.
func (c compiled) matches(ev Event) bool {
	if c.Event != ev.Name {
		return false
	}
	if c.match == nil {
		return true
	}
	call := ev.Call
	if call.Tool == "" {
		call.Tool = ev.ToolName
	}
	return c.match.Decide(call, permission.None).Action != permission.None
}
