package planning

import (
	"sync/atomic"

	"github.com/harness9/harness9/tool"
)

// Evidence counts the successful tool calls (other than todo_write and
// submit_plan) since the last successful todo_write. todo_write lets an item
// become completed only while the count is above zero: updating a status
// without calling any other tool is no progress, and a model that claims
// otherwise is stopped by code rather than by a prompt it may ignore. The engine records calls and persists the count with the
// todos, so a continuation run sees it. It is safe for concurrent use; a nil
// *Evidence counts nothing.
type Evidence struct {
	n atomic.Int64
}

// Record counts one successful tool call.
func (e *Evidence) Record() {
	if e != nil {
		e.n.Add(1)
	}
}

// Count returns the calls recorded since the last Reset.
func (e *Evidence) Count() int {
	if e == nil {
		return 0
	}
	return int(e.n.Load())
}

// Reset sets the count to zero (a successful todo_write does this).
func (e *Evidence) Reset() { e.Set(0) }

// Set restores a count, for example one loaded from the session store.
func (e *Evidence) Set(n int) {
	if e != nil {
		e.n.Store(int64(n))
	}
}

// CountsAsEvidence reports whether a finished tool call is evidence of work:
// it succeeded and it was not one of the planning tools themselves.
func CountsAsEvidence(toolName string, res tool.Result) bool {
	return !res.IsError && toolName != TodoWriteName && toolName != SubmitPlanName
}
