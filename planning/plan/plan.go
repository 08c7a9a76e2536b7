// Package plan holds the plain types of harness9's planning module: the
// mode a run is in, the status of a session's planning workflow, the todo
// list and the plan the user approves. They are what a session store saves,
// so they live apart from package planning and its gate, tools and
// schemas: a store imports this package and nothing heavier (no shell
// parser, no JSON Schema library). Package planning re-exports every name
// here; programs use those.
package plan

import "fmt"

// Mode decides which tools a run may use. It is separate from Status: a mode
// is chosen by the user, a status is the phase the workflow is in.
type Mode int

// The modes, in Shift+Tab order.
const (
	ModeDefault  Mode = iota // every tool
	ModePlan                 // read-only: write tools hidden and refused, bash gated
	ModeAutoEdit             // every tool, each write/edit/bash call confirmed by the user
)

// Modes lists every mode, in Shift+Tab order.
var Modes = []Mode{ModeDefault, ModePlan, ModeAutoEdit}

// Next returns the mode after m in the Shift+Tab cycle.
func (m Mode) Next() Mode { return (m + 1) % Mode(len(Modes)) }

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

// MarshalText writes the mode's stable name, so JSON shows "plan", not 1.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a name written by MarshalText.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Status is the phase of a session's planning workflow. It is separate from
// Mode (which the user picks) and from how one run ended: a status outlives
// runs and is stored with the session. Package planning's Workflow is the
// only thing that changes it.
type Status string

// The statuses.
const (
	StatusIdle             Status = "idle"              // no plan in flight
	StatusRunning          Status = "running"           // a run is in progress, no plan submitted in it yet
	StatusAwaitingApproval Status = "awaiting_approval" // a plan waits for the user's review
	StatusExecuting        Status = "executing"         // an approved plan is being carried out
	StatusStalled          Status = "stalled"           // execution stopped without finishing the todo list
)

// Statuses lists every status, in the order of a plan's life.
var Statuses = []Status{StatusIdle, StatusRunning, StatusAwaitingApproval, StatusExecuting, StatusStalled}

// TodoStatus is the state of one todo item.
type TodoStatus string

// The todo states. Transition rules are enforced by the todo_write tool,
// not by the types.
const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoCompleted  TodoStatus = "completed"
	TodoCancelled  TodoStatus = "cancelled"
)

// Valid reports whether s is one of the four known states.
func (s TodoStatus) Valid() bool {
	switch s {
	case TodoPending, TodoInProgress, TodoCompleted, TodoCancelled:
		return true
	}
	return false
}

// JSONSchemaEnum lists the legal statuses, so a schema built from TodoItem
// (todo_write's) carries them as an enum and the model cannot even form
// another value.
func (TodoStatus) JSONSchemaEnum() []string {
	return []string{string(TodoPending), string(TodoInProgress), string(TodoCompleted), string(TodoCancelled)}
}

// TodoItem is one entry of the todo list. The jsonschema tags describe the
// fields to the model (todo_write's schema is built from this type).
type TodoItem struct {
	ID      string     `json:"id" jsonschema:"A short unique id, such as \"1\"; keep it stable across calls."`
	Content string     `json:"content" jsonschema:"What this step does, as one concrete action."`
	Status  TodoStatus `json:"status" jsonschema:"pending, in_progress, completed or cancelled"`
}

// Progress counts items: done is completed items, active is pending plus
// in-progress, total is every item.
func Progress(items []TodoItem) (done, active, total int) {
	for _, it := range items {
		switch it.Status {
		case TodoCompleted:
			done++
		case TodoPending, TodoInProgress:
			active++
		}
	}
	return done, active, len(items)
}

// Plan is what submit_plan records: a stable proposal the user approves.
type Plan struct {
	Title   string   `json:"title"`
	Content string   `json:"content"`
	Steps   []string `json:"steps"`
}
