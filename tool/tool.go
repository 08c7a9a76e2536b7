// Package tool defines what a harness9 tool is, the Registry that decides
// which tools the model sees and which calls it may run, and the Workspace
// sandbox every file tool resolves paths through.
package tool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/harness9/harness9/llm"
)

// Tool is one capability the model can call. Implementations must be safe
// for concurrent use.
type Tool interface {
	// Name is the identifier the model calls the tool by.
	Name() string
	// Description tells the model what the tool does and when to use it.
	Description() string
	// Schema is the JSON Schema of the tool's input object.
	Schema() json.RawMessage
	// Execute runs the tool. What the model should see, including failures it
	// can recover from (a bad path, a refused edit), is returned as a Result,
	// with IsError set for failures. A non-nil error is reserved for failures
	// of the harness itself; the Registry still reports it to the model as an
	// error result, unless the context was cancelled.
	Execute(ctx context.Context, input json.RawMessage) (Result, error)
}

// Result is what a tool call returns to the model.
type Result struct {
	Output  string
	IsError bool
	// Images are pictures the result shows the model (read_file on an
	// image). A model without vision gets a note in Output instead.
	Images []llm.Image
	// EndTurn asks the run loop to stop after this result has been recorded,
	// without another model call (submit_plan uses it).
	EndTurn bool
	// ExitCode is the exit status of the command the call ran (bash), for
	// telemetry; nil when it ran none or the command was killed.
	ExitCode *int
	// Refused, when set, says a boundary of the harness stopped the call
	// (a path outside the workspace, a change the git guard undid); the
	// result is an error then.
	Refused Refusal
}

// Errorf builds an error Result, worded for the model.
func Errorf(format string, args ...any) Result {
	return Result{Output: fmt.Sprintf(format, args...), IsError: true}
}

// Text builds a successful Result.
func Text(s string) Result { return Result{Output: s} }

// ReadOnly is implemented by tools that never change anything outside the
// process. The Registry may run several read-only calls of one assistant
// message concurrently.
type ReadOnly interface {
	ReadOnly() bool
}

// Gate decides, per run, which tools the model sees and which calls may run.
// It is the seam Plan Mode hooks into: the schema layer (Visible) and the
// execution layer (Check) are both enforced by the Registry, so a model that
// names a tool it saw earlier in the history is still refused.
type Gate interface {
	// Visible reports whether the tool's definition is sent to the model.
	Visible(name string) bool
	// Check is called before every execution. A non-nil error refuses the
	// call; its text is returned to the model as an error result.
	Check(name string, input json.RawMessage) error
}
