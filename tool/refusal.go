package tool

import (
	"context"
	"errors"
	"fmt"
)

// Refusals is told of each call a Registry's gate refuses (the mode's
// tool gate, Plan Mode's read-only bash check, deny rules): telemetry
// counts them. It must be safe for concurrent use and must not block.
type Refusals func(name string, err error)

type refusalsKey struct{}

// ContextWithRefusals returns ctx carrying r, which the Registry calls
// when its gate refuses a call made with ctx.
func ContextWithRefusals(ctx context.Context, r Refusals) context.Context {
	return context.WithValue(ctx, refusalsKey{}, r)
}

// refused tells ctx's Refusals, if any, that the gate refused the call.
func refused(ctx context.Context, name string, err error) {
	if r, _ := ctx.Value(refusalsKey{}).(Refusals); r != nil {
		r(name, err)
	}
}

// Refusal names the boundary that stopped a call: it did not do what it
// asked because the harness keeps that out of the model's reach. A tool
// sets Result.Refused; the empty Refusal is a call nothing refused.
type Refusal string

// The boundaries that refuse calls.
const (
	// RefusedWorkspace: a file tool was given a path outside the
	// workspace, in its deny list (~/.ssh, the data directory ...) or
	// inside what git runs from (.git, a hooks directory).
	RefusedWorkspace Refusal = "workspace"
	// RefusedGitGuard: a command changed git's configuration, hooks or
	// repository pointers and the git guard undid it.
	RefusedGitGuard Refusal = "git_guard"
)

// ErrRefused is wrapped by the Workspace's errors for a path it refuses
// (outside the root, in the deny list, inside what git runs from), so a
// tool can tell a refusal from a file that does not exist.
var ErrRefused = errors.New("refused by the workspace")

// refusal is a Workspace error that is a refusal: its text is the
// message, and errors.Is(err, ErrRefused) holds.
type refusal struct{ msg string }

func (e refusal) Error() string        { return e.msg }
func (e refusal) Is(target error) bool { return target == ErrRefused }

func refusef(format string, args ...any) error { return refusal{fmt.Sprintf(format, args...)} }

// Failed builds the error Result of err for the tool name ("name: err"),
// marked RefusedWorkspace when err is a refusal of the Workspace.
func Failed(name string, err error) Result {
	res := Errorf("%s: %v", name, err)
	if errors.Is(err, ErrRefused) {
		res.Refused = RefusedWorkspace
	}
	return res
}
