package agent

import (
	"encoding/json"
	"fmt"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// Event is one thing that happened during a run. The TUI and the headless
// JSONL writer consume the same stream. Type returns the JSONL "type" name.
type Event interface {
	Type() string
}

// RunStatus is how a run (or an auto-execution) ended, as the Done event
// and the CLI report it: RunCompleted, RunAwaitingApproval, RunStalled,
// RunMaxTurns, RunCancelled or RunError. They are the planning driver's,
// which both engines run.
type RunStatus string

// RunCompleted: the model finished (or every todo of an approved plan is done).
const RunCompleted RunStatus = "completed"

// RunAwaitingApproval: a plan was submitted; answer it with Engine.Review.
const RunAwaitingApproval RunStatus = "awaiting_approval"

// RunStalled: auto-execution made no progress for the stall threshold's rounds.
const RunStalled RunStatus = "stalled"

// RunMaxTurns: the run reached its turn limit (WithMaxTurns).
const RunMaxTurns RunStatus = "max_turns"

// RunCancelled: the run's context ended, or its consumer stopped reading.
const RunCancelled RunStatus = "cancelled"

// RunError: the provider, the store or the engine failed; Done.Err says how.
const RunError RunStatus = "error"

// SessionStarted opens every run's stream.
type SessionStarted struct {
	SessionID string
	Workdir   string
	Mode      planning.Mode
}

// TextDelta is a fragment of streamed assistant text.
type TextDelta struct{ Text string }

// ReasoningDelta is a fragment of streamed reasoning text.
type ReasoningDelta struct{ Text string }

// Text is a whole assistant message's text, sent once the message completes.
type Text struct{ Text string }

// ToolCall announces a tool call about to run.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// ToolResult is a finished tool call's result as the model sees it.
type ToolResult struct {
	ID      string
	Name    string
	IsError bool
	Output  string
	// Summary is one line saying what the call did, from the tool's
	// tool.Summarizer; "" when the tool has none.
	Summary string
	// Diff says the output is a unified diff (tool.DiffOutput).
	Diff bool
	// ExitCode is the exit status of the command the call ran, if any
	// (tool.Result.ExitCode).
	ExitCode *int
	// Refused names the boundary that stopped the call, if one did
	// (tool.Result.Refused).
	Refused tool.Refusal
}

// ToolOutput is output a running tool produced so far (a command's
// output as it is written), for display; ToolResult still carries what
// the model sees. The headless JSONL stream leaves it out.
type ToolOutput struct {
	ID   string
	Text string
}

// Todos is the todo list after a successful todo_write (or submit_plan).
type Todos struct{ Items []planning.TodoItem }

// PlanSubmitted is a plan waiting for approval.
type PlanSubmitted struct{ Plan planning.Plan }

// Approved says a plan was approved and its task directory created.
type Approved struct{ TaskDir string }

// ExecRound starts one round of auto-execution.
type ExecRound struct{ Round, Done, Total int }

// Stalled says auto-execution stopped after Rounds rounds without progress.
type Stalled struct{ Rounds int }

// Compacted says the history sent to the model was made smaller: older
// tool outputs shortened to a line and a note, and, with Summarised, older
// messages summarised (or, with Fallback, dropped). The token counts are
// estimates; BeforeTokens and AfterTokens count the history as sent
// (summary included), FixedTokens the system prompt and tool definitions
// every request also carries.
type Compacted struct {
	BeforeTokens int
	AfterTokens  int
	Fallback     bool
	Note         string
	// Summarised is set when the model was asked for a summary.
	Summarised bool
	// Elided is the number of tool outputs shortened this time.
	Elided int
	// Reason says why: "threshold" (the request passed ThresholdTokens),
	// "window" (it would not fit ContextWindow otherwise) or "manual".
	Reason          string
	ThresholdTokens int
	ContextWindow   int
	FixedTokens     int
}

// UsageUpdate reports token usage after a model call and how full the
// context window is.
type UsageUpdate struct {
	Usage         llm.Usage
	ContextTokens int
	ContextWindow int
}

// Error reports a failure; a Done event with RunError follows.
type Error struct{ Message string }

// Done closes a run's stream. Err explains RunError and RunCancelled
// (for example the provider's error, or context.Canceled).
type Done struct {
	Status RunStatus
	Err    error `json:"-"`
}

// Decision answers an ApprovalRequest (ApprovalRequest.Respond): Deny,
// AllowOnce, AllowSession, AllowProject or Refuse.
type Decision int

// Deny refuses the call; the reason goes back to the model.
const Deny Decision = 0

// AllowOnce runs this call.
const AllowOnce Decision = 1

// AllowSession runs this call and every later call of the same tool in
// this session.
const AllowSession Decision = 2

// AllowProject runs this call and adds the request's Rules to the allow
// rules of this project for good (WithPermissionStore).
const AllowProject Decision = 3

// Refuse refuses the call when nobody can be asked (headless without a
// terminal); the reason is the whole message the model sees.
const Refuse Decision = 4

// ApprovalRequest asks the user whether a tool call may run: a call the
// mode or an ask rule puts to the user (DESIGN §7.2). The run blocks until
// Respond is called or the run's context ends. Respond may be called from
// any goroutine, once.
type ApprovalRequest struct {
	Call llm.ToolCall
	// Preview is what the user should look at: the tool's own preview (a
	// diff for edits, the command for bash), else the raw arguments.
	Preview string
	// Why says why the user is asked ("AutoEdit asks before every change",
	// the ask rule and its source, ...).
	Why string
	// Rules are the allow rules that would let this call run unasked: what
	// AllowProject stores, and what a refusal tells the user to pass with
	// --allow. Empty when no rule narrower than the whole tool covers it.
	Rules []string
	reply chan approvalReply
}

type approvalReply struct {
	decision Decision
	reason   string
}

// Decision returns the Decision a front end's answer stands for, in the
// words serve's API and the CLI offer: "allow" runs this call (AllowOnce);
// "always" runs it and, for good, every call Rules covers (AllowProject),
// or, when no rule narrower than the whole tool covers it, every call of
// the tool for the rest of the session (AllowSession); "deny" refuses it
// (Deny).
func (r *ApprovalRequest) Decision(answer string) (Decision, error) {
	switch answer {
	case "allow":
		return AllowOnce, nil
	case "always":
		if len(r.Rules) > 0 {
			return AllowProject, nil
		}
		return AllowSession, nil
	case "deny":
		return Deny, nil
	}
	return Deny, fmt.Errorf("the answer must be allow, always or deny, not %q", answer)
}

// Respond answers the request. reason is sent to the model on Deny.
func (r *ApprovalRequest) Respond(d Decision, reason string) {
	select {
	case r.reply <- approvalReply{d, reason}:
	default: // already answered
	}
}

// Type implementations: the JSONL "type" names of DESIGN §4.
func (SessionStarted) Type() string   { return "session" }
func (TextDelta) Type() string        { return "text_delta" }
func (ReasoningDelta) Type() string   { return "reasoning_delta" }
func (Text) Type() string             { return "text" }
func (ToolCall) Type() string         { return "tool_call" }
func (ToolResult) Type() string       { return "tool_result" }
func (ToolOutput) Type() string       { return "tool_output" }
func (Todos) Type() string            { return "todos" }
func (PlanSubmitted) Type() string    { return "plan" }
func (Approved) Type() string         { return "approved" }
func (ExecRound) Type() string        { return "exec_round" }
func (Stalled) Type() string          { return "stalled" }
func (Compacted) Type() string        { return "compacted" }
func (UsageUpdate) Type() string      { return "usage" }
func (Error) Type() string            { return "error" }
func (Done) Type() string             { return "done" }
func (*ApprovalRequest) Type() string { return "approval_request" }
