package planning

import (
	"fmt"

	"github.com/harness9/harness9/sandbox"
)

// What a mode means is decided here, in one table, and nowhere else: which
// tools a run sees, what it asks the user, how the kernel confines its
// commands, whether its edits are checkpointed, how its prompt is framed,
// which sub-agents it may start and whether an approved plan can execute in
// it. The engine reads the row of its run's mode (PolicyFor) instead of
// comparing modes; a new mode, or a change of what one means, is one row.

// Ask says which of the calls no permission rule decides a mode puts to
// the user. A tool that declares itself read-only is never asked about.
type Ask int

// The asking policies.
const (
	// AskNone: nothing is asked. Only a read-only mode has it: the gate
	// already keeps everything that could change something out.
	AskNone Ask = iota
	// AskUncontained: a call is asked about when the harness cannot
	// contain it: the tool changes things and does not declare itself
	// contained (file tools inside the workspace and bash in the kernel
	// sandbox are; MCP and custom tools that change things are not).
	AskUncontained
	// AskChanges: every call that may change something is asked about.
	AskChanges
)

// Policy is what one mode means: a row of the mode table.
type Policy struct {
	Mode Mode
	// ReadOnly: only tools that change nothing are visible and callable
	// (tool.ReadOnly; shell tools the kernel runs read-only, behind the
	// parse gate), with todo_write and submit_plan. Sub-agents that
	// change files are refused.
	ReadOnly bool
	// Plans: the run makes a plan. submit_plan is offered (only here), and
	// a run that ends with active todos and no plan submits them as the
	// plan (the seeds' fallback).
	Plans bool
	// PromptPrefix is put before the user's prompt: the framing of the
	// mode's work ("" for none).
	PromptPrefix string
	// Sandbox is the kernel policy of every command the model causes to
	// run (bash, hooks).
	Sandbox sandbox.Policy
	// Checkpoints: a file a call changes is recorded first, so the turn
	// can be undone.
	Checkpoints bool
	// Ask says which calls no rule decides are put to the user; AskReason
	// is what the user is told when the mode itself is why ("" when the
	// reason depends on the tool).
	Ask       Ask
	AskReason string
	// Executes: an approved plan can execute in this mode.
	Executes bool
}

// modes is the mode table.
var modes = map[Mode]Policy{
	ModeDefault: {Mode: ModeDefault, Sandbox: sandbox.WorkspaceWrite, Checkpoints: true,
		Ask: AskUncontained, Executes: true},
	ModePlan: {Mode: ModePlan, ReadOnly: true, Plans: true, PromptPrefix: PlanModePrefix,
		Sandbox: sandbox.ReadOnly, Ask: AskNone},
	ModeAutoEdit: {Mode: ModeAutoEdit, Sandbox: sandbox.WorkspaceWrite, Checkpoints: true,
		Ask: AskChanges, AskReason: "AutoEdit asks before every call that may change something", Executes: true},
}

// PolicyFor returns the row of mode m. An unknown mode gets the most
// careful row there is: read-only, planning, asking nothing that could
// change anything.
func PolicyFor(m Mode) Policy {
	if p, ok := modes[m]; ok {
		return p
	}
	p := modes[ModePlan]
	p.Mode = m
	return p
}

// Asks reports whether a call of a tool that is readOnly (changes nothing)
// or contained (the harness bounds what it changes) is put to the user
// when no permission rule decides it.
func (p Policy) Asks(readOnly, contained bool) bool {
	switch {
	case readOnly:
		return false
	case p.Ask == AskUncontained:
		return !contained
	}
	return p.Ask == AskChanges
}

// readOnlyMode is the mode whose row is read-only: where read-only
// sub-agents run, whatever their parent's mode.
const readOnlyMode = ModePlan

// SubagentMode returns the mode a sub-agent started by a run in this mode
// runs in: a read-only one (its tools all change nothing) runs under the
// read-only row; one that may change files runs in its parent's mode,
// which a read-only mode refuses.
func (p Policy) SubagentMode(readOnly bool) (Mode, error) {
	switch {
	case readOnly:
		return readOnlyMode, nil
	case p.ReadOnly:
		return p.Mode, fmt.Errorf("a sub-agent that may change files cannot run in %s mode", p.Mode)
	}
	return p.Mode, nil
}
