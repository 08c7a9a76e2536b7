package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/aymanbagabas/go-udiff"
)

// FileChange is what one call will do to one file, as the whole text
// before and after: an editor shows it as a diff (the Agent Client
// Protocol's diff content) and can offer to review it before it happens.
type FileChange struct {
	// Path is the file as the call names it (relative to the workdir or
	// absolute).
	Path string
	// Old is the file's text now; "" with Created.
	Old string
	// New is the text the call will leave.
	New string
	// Created says the file does not exist yet.
	Created bool
}

// ChangePreviewer is implemented by tools whose calls rewrite one text
// file (write_file, edit_file). PreviewChange computes the change a call
// would make without making it, reading the file the way the call would
// (through the Workspace, the editor's buffer included); ok is false when
// it cannot say (the file is unreadable, binary, or the edit would fail).
type ChangePreviewer interface {
	PreviewChange(ctx context.Context, input json.RawMessage) (FileChange, bool)
}

// Diff is the change as a unified diff of the two texts (a/PATH, b/PATH):
// what an approval shows for it.
func (c FileChange) Diff() string {
	return udiff.Unified("a/"+c.Path, "b/"+c.Path, c.Old, c.New)
}

// previewReadMax is the largest file PreviewText reads.
const previewReadMax = 1 << 20

// PreviewText computes the change a call would make to the text file at
// path without making it: edit gets the file's text now, read as the call
// would read it (ReadText: beneath the root, deny list applied, the
// editor's buffer included), with exists false and old "" when there is
// no file yet, and returns the text the call leaves, or false when the
// call would fail. ok is false too when the file cannot be shown as text
// (unreadable, binary, larger than 1 MiB).
func (w *Workspace) PreviewText(ctx context.Context, path string, edit func(old string, exists bool) (string, bool)) (c FileChange, ok bool) {
	b, truncated, err := w.ReadText(ctx, path, previewReadMax)
	exists := true
	switch {
	case errors.Is(err, fs.ErrNotExist):
		exists = false
	case err != nil || truncated || bytes.IndexByte(b, 0) >= 0:
		return FileChange{}, false
	}
	text, ok := edit(string(b), exists)
	if !ok {
		return FileChange{}, false
	}
	return FileChange{Path: path, Old: string(b), New: text, Created: !exists}, true
}
