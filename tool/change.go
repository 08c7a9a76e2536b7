package tool

import (
	"context"
	"encoding/json"
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
