package tool

import "encoding/json"

// ReadOnlyCapable is implemented by tools that change things in general but
// can run a call without changing anything when the context asks them to
// (sandbox.ContextWithPolicy with sandbox.ReadOnly): bash confined by the
// kernel sandbox. CanRunReadOnly reports whether they can on this system; a
// tool that cannot is not offered while planning.
type ReadOnlyCapable interface {
	CanRunReadOnly() bool
}

// GateOnly is implemented by ReadOnlyCapable tools that report whether a
// parse gate alone guards their read-only calls on this system (no kernel
// sandbox; the user opted in). A Plan-Mode gate then checks their calls
// more strictly: what it otherwise leaves to the kernel is refused too.
type GateOnly interface {
	GateOnly() bool
}

// Contained is implemented by tools that report whether the harness can
// bound their effects (bash inside the kernel sandbox writes only the
// workdir and has no network). A tool that reports false is asked about
// before each call outside Plan Mode.
type Contained interface {
	Contained() bool
}

// Uncontained is implemented by Contained tools that can say why their
// calls are not contained right now (the sandbox turned off, unavailable
// on this system, the network open), for the question put to the user.
type Uncontained interface {
	UncontainedReason() string
}

// Previewer is implemented by tools that can show what a call would do
// before it runs: the approval dialog shows Preview instead of the raw
// arguments (a diff for an edit, the command for a shell).
type Previewer interface {
	Preview(input json.RawMessage) string
}

// Summarizer is implemented by tools that can say in one line what a
// finished call did, for transcripts ("exit code: 0 · ok", "read 40
// lines"). out is the result the model saw.
type Summarizer interface {
	Summary(input json.RawMessage, out Result) string
}

// DiffOutput is implemented by tools whose successful output is a unified
// diff (edit_file), so front ends can render it as one without knowing the
// tool.
type DiffOutput interface {
	OutputIsDiff() bool
}

// Scoped is implemented by tools whose calls act on something a permission
// rule can name: a shell command line, a file path, a URL. Rules with a
// specifier ("bash(git diff:*)", "edit_file(src/**)") match only tools
// that report a scope.
type Scoped interface {
	Scope(input json.RawMessage) Scope
}

// Scope is what one call acts on; fields a tool does not use are empty.
type Scope struct {
	Command string // the shell command line
	Path    string // the file or directory path, as given
	URL     string // the address fetched
}

// FileChanger is implemented by tools whose calls change files of the
// workspace, so the harness can checkpoint them before a call runs (undo).
// Paths are the files one call will change, as given to the tool; tree
// reports that the call may change any file of the workdir (a shell
// command), which the harness detects by comparing the tree before and
// after.
type FileChanger interface {
	ChangedFiles(input json.RawMessage) (paths []string, tree bool)
}

// Concurrent is implemented by tools that are not read-only but whose calls
// may still run at the same time as the other calls of one assistant
// message (the task tool: each call is a sub-agent with its own context).
// The Registry batches them with read-only calls.
type Concurrent interface {
	ConcurrencySafe() bool
}
