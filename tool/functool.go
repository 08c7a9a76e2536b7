package tool

import (
	"context"
	"encoding/json"
)

// New builds a Tool from a typed function. The schema is generated from In
// and arguments are decoded into In before fn runs; decoding failures become
// error results that name the problem.
//
// Options declare what the harness needs to know about the tool, as a tool
// struct would by implementing the property interfaces: that it only reads
// (AsReadOnly), the files a call changes (WithChangedFiles, so undo covers
// them), what the user approves (WithPreview, WithChangePreview), what
// permission rules match (WithScope), a transcript's line (WithSummary) and
// its kind (WithKind). A tool that changes files and says nothing is run
// like any tool that is not read-only, but its changes are not
// checkpointed and its approval shows its raw JSON arguments.
//
// New panics when a tool is declared read-only and also to change files:
// a programming error that any test building the tool catches.
func New[In any](name, description string, fn func(ctx context.Context, in In) (Result, error), opts ...FuncOption) Tool {
	t := &funcTool{Spec: NewSpec[In](name, description)}
	t.run = func(ctx context.Context, raw json.RawMessage) (Result, error) { return Run(ctx, name, raw, fn) }
	for _, o := range opts {
		o(t)
	}
	if t.readOnly && (t.changed != nil || t.tree) {
		panic("tool.New: " + name + " is declared read-only (AsReadOnly) and to change files")
	}
	return t
}

// FuncOption configures a tool built with New. The options that look at a
// call's input take a function of the tool's input type In; the input is
// decoded for them as for the tool (a call whose input does not decode
// gets the option's zero answer).
type FuncOption func(*funcTool)

// AsReadOnly marks a tool built with New as read-only: it runs in Plan
// Mode, is never asked about, and its calls of one message may run at the
// same time.
func AsReadOnly() FuncOption { return func(t *funcTool) { t.readOnly = true } }

// WithKind gives a tool built with New its kind.
func WithKind(k Kind) FuncOption { return func(t *funcTool) { t.kind = k } }

// WithChangedFiles declares the files a call changes, as the call names
// them (relative to the workdir or absolute): the engine records each
// file's prior content before the call runs, so undo (Engine.Rewind)
// restores them (FileChanger).
func WithChangedFiles[In any](files func(in In) []string) FuncOption {
	return func(t *funcTool) {
		t.changed = func(raw json.RawMessage) []string {
			in, err := Decode[In](raw)
			if err != nil {
				return nil
			}
			return files(in)
		}
	}
}

// WithAnyFileChanged declares that a call may change any file of the
// workdir (it runs a program): the engine compares the tree before and
// after the call, as it does for bash, so undo covers what changed.
func WithAnyFileChanged() FuncOption { return func(t *funcTool) { t.tree = true } }

// WithPreview gives what the user approves instead of the call's raw JSON
// arguments (Previewer): the command, or what will be written where.
func WithPreview[In any](preview func(in In) string) FuncOption {
	return func(t *funcTool) {
		t.preview = func(raw json.RawMessage) string {
			in, err := Decode[In](raw)
			if err != nil {
				return ""
			}
			return preview(in)
		}
	}
}

// WithChangePreview declares that a call rewrites one text file and how
// (ChangePreviewer): change returns the file's text before and after,
// without changing it; Workspace.PreviewText computes one from the file
// as the call would read it. An editor shows it as a diff, and unless
// WithPreview says otherwise, so does the approval (FileChange.Diff).
// ok false means it cannot say (the file is unreadable, or the call would
// fail).
func WithChangePreview[In any](change func(ctx context.Context, in In) (c FileChange, ok bool)) FuncOption {
	return func(t *funcTool) {
		t.change = func(ctx context.Context, raw json.RawMessage) (FileChange, bool) {
			in, err := Decode[In](raw)
			if err != nil {
				return FileChange{}, false
			}
			return change(ctx, in)
		}
	}
}

// WithScope says what a call acts on, so permission rules with a
// specifier match it ("deploy(prod/**)" needs the Path, "notify(domain:…)"
// the URL) and hooks' matchers too (Scoped).
func WithScope[In any](scope func(in In) Scope) FuncOption {
	return func(t *funcTool) {
		t.scope = func(raw json.RawMessage) Scope {
			in, err := Decode[In](raw)
			if err != nil {
				return Scope{}
			}
			return scope(in)
		}
	}
}

// WithSummary says in one line what a finished call did, for transcripts
// (Summarizer); res is the result the model saw.
func WithSummary[In any](summary func(in In, res Result) string) FuncOption {
	return func(t *funcTool) {
		t.summary = func(raw json.RawMessage, res Result) string {
			in, err := Decode[In](raw)
			if err != nil {
				return ""
			}
			return summary(in, res)
		}
	}
}

// funcTool implements every property interface; a property its options
// did not declare answers as a tool without it would be treated (no
// files, no preview, no scope, no summary).
type funcTool struct {
	Spec
	readOnly bool
	kind     Kind
	tree     bool
	run      func(context.Context, json.RawMessage) (Result, error)
	changed  func(json.RawMessage) []string
	preview  func(json.RawMessage) string
	change   func(context.Context, json.RawMessage) (FileChange, bool)
	scope    func(json.RawMessage) Scope
	summary  func(json.RawMessage, Result) string
}

func (t *funcTool) Execute(ctx context.Context, in json.RawMessage) (Result, error) {
	return t.run(ctx, in)
}

// ReadOnly implements ReadOnly.
func (t *funcTool) ReadOnly() bool { return t.readOnly }

// Kind implements Kinded ("" when WithKind was not given: KindOf says other).
func (t *funcTool) Kind() Kind { return t.kind }

// ChangedFiles implements FileChanger.
func (t *funcTool) ChangedFiles(input json.RawMessage) ([]string, bool) {
	var files []string
	if t.changed != nil {
		files = t.changed(input)
	}
	return files, t.tree
}

// Preview implements Previewer: WithPreview's text, else the diff of
// WithChangePreview's change, else "" (the approval shows the arguments).
func (t *funcTool) Preview(input json.RawMessage) string {
	if t.preview != nil {
		return t.preview(input)
	}
	if c, ok := t.PreviewChange(context.Background(), input); ok {
		return c.Diff()
	}
	return ""
}

// PreviewChange implements ChangePreviewer.
func (t *funcTool) PreviewChange(ctx context.Context, input json.RawMessage) (FileChange, bool) {
	if t.change == nil {
		return FileChange{}, false
	}
	return t.change(ctx, input)
}

// Scope implements Scoped.
func (t *funcTool) Scope(input json.RawMessage) Scope {
	if t.scope == nil {
		return Scope{}
	}
	return t.scope(input)
}

// Summary implements Summarizer.
func (t *funcTool) Summary(input json.RawMessage, res Result) string {
	if t.summary == nil {
		return ""
	}
	return t.summary(input, res)
}
