// Package planning is harness9's Planning module: the Plan Mode gate, the
// todo list and its todo_write tool, submit_plan, plan files and task
// directories, and the Executor that drives auto-execution and notices when
// it stalls. Each rule lives at the layer the design chose for it:
// permissions in the tool gate, behaviour hints in prompts, validation in the
// tools, storage without judgment. The plain types a store saves (Mode,
// Status, TodoItem, Plan) are defined in package planning/plan and
// re-exported here.
package planning

import "github.com/harness9/harness9/planning/plan"

// Mode decides which tools a run may use (plan.Mode). It is separate from
// Status: a mode is chosen by the user, a status is the phase the loop is in.
type Mode = plan.Mode

// The modes, in Shift+Tab order.
const (
	ModeDefault  = plan.ModeDefault  // every tool
	ModePlan     = plan.ModePlan     // read-only: write tools hidden and refused, bash gated
	ModeAutoEdit = plan.ModeAutoEdit // every tool, each write/edit/bash call confirmed by the user
)

// ParseMode is the inverse of Mode.String.
func ParseMode(s string) (Mode, error) { return plan.ParseMode(s) }
