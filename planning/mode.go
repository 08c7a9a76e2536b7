// Package planning is harness9's Planning module: the Plan Mode gate, the
// todo list and its todo_write tool, submit_plan, plan files and task
// directories, and the Executor that drives auto-execution and notices when
// it stalls. Each rule lives at the layer the design chose for it:
// permissions in the tool gate, behaviour hints in prompts, validation in the
// tools, storage without judgment.
package planning

import "fmt"

// Mode decides which tools a run may use. It is separate from Status: a mode
// is chosen by the user, a status is the phase the loop is in.
type Mode int

// The modes, in Shift+Tab order.
const (
	ModeDefault  Mode = iota // every tool
	ModePlan                 // read-only: write tools hidden and refused, bash gated
	ModeAutoEdit             // every tool, each write/edit/bash call confirmed by the user
)

const modeCount = 3

// Next returns the mode after m in the Shift+Tab cycle.
func (m Mode) Next() Mode { return (m + 1) % modeCount }

// String returns the mode's stable name, used in the store and the CLI.
func (m Mode) String() string {
	switch m {
	case ModeDefault:
		return "default"
	case ModePlan:
		return "plan"
	case ModeAutoEdit:
		return "auto_edit"
	}
	return fmt.Sprintf("mode(%d)", int(m))
}

// ParseMode is the inverse of Mode.String.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "default":
		return ModeDefault, nil
	case "plan":
		return ModePlan, nil
	case "auto_edit":
		return ModeAutoEdit, nil
	}
	return ModeDefault, fmt.Errorf("unknown mode %q (want default, plan or auto_edit)", s)
}
