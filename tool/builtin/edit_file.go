package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/harness9/harness9/tool"
)

//go:embed edit_file.md
var editFileDescription string

// EditFileInput is the input of edit_file.
type EditFileInput struct {
	Path       string `json:"path" jsonschema:"file to edit, relative to the workspace root"`
	OldString  string `json:"old_string" jsonschema:"exact text to replace; must be unique in the file unless replace_all is true"`
	NewString  string `json:"new_string" jsonschema:"text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence of old_string (default false)"`
}

// EditFile is the edit_file tool.
type EditFile struct {
	tool.Spec
	ws *tool.Workspace
}

// NewEditFile returns the edit_file tool.
func NewEditFile(ws *tool.Workspace) *EditFile {
	return &EditFile{Spec: tool.NewSpec[EditFileInput]("edit_file", editFileDescription), ws: ws}
}

// OutputIsDiff implements tool.DiffOutput: a successful edit returns the
// unified diff of the change.
func (t *EditFile) OutputIsDiff() bool { return true }

// Execute implements tool.Tool.
func (t *EditFile) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, t.Name(), input, t.edit)
}

func (t *EditFile) edit(ctx context.Context, in EditFileInput) (tool.Result, error) {
	if in.Path == "" {
		return tool.Errorf("edit_file: path is required"), nil
	}
	if in.OldString == in.NewString {
		return tool.Errorf("edit_file: old_string and new_string are identical; there is nothing to change"), nil
	}
	path, err := t.ws.Resolve(in.Path)
	if err != nil {
		return tool.Failed("edit_file", err), nil
	}
	rel := t.ws.Rel(path)
	data, _, err := t.ws.ReadText(ctx, in.Path, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if in.OldString != "" {
			return tool.Errorf("edit_file: file %q does not exist; use write_file to create it, or glob to find the right path", in.Path), nil
		}
	case err != nil:
		return tool.Failed("edit_file", err), nil
	case looksBinary(data):
		return tool.Errorf("edit_file: %q is a binary file; only text files can be edited", in.Path), nil
	}
	before := string(data)

	var after string
	count := 1
	if in.OldString == "" {
		if before != "" {
			return tool.Errorf("edit_file: old_string is empty but %q is not; give the exact text to replace", in.Path), nil
		}
		after = in.NewString
	} else {
		oldS, newS := in.OldString, in.NewString
		count = strings.Count(before, oldS)
		if count == 0 && strings.Contains(before, "\r\n") && strings.Contains(oldS, "\n") {
			// The model writes "\n"; the file uses CRLF line endings.
			oldS, newS = toCRLF(oldS), toCRLF(newS)
			count = strings.Count(before, oldS)
		}
		switch {
		case count == 0:
			return tool.Errorf("edit_file: old_string was not found in %q; read the file again and copy the text exactly, whitespace and indentation included", in.Path), nil
		case count > 1 && !in.ReplaceAll:
			return tool.Errorf("edit_file: old_string occurs %d times in %q; include more surrounding lines to make it unique, or set replace_all to true to replace all %d", count, in.Path, count), nil
		}
		after = strings.ReplaceAll(before, oldS, newS)
	}

	created, err := t.ws.WriteText(ctx, in.Path, []byte(after))
	if err != nil {
		return tool.Failed("edit_file", err), nil
	}
	diff := udiff.Unified("a/"+rel, "b/"+rel, before, after)
	if created {
		return tool.Text(fmt.Sprintf("created %s\n\n%s", rel, diff)), nil
	}
	return tool.Text(fmt.Sprintf("edited %s: replaced %s\n\n%s", rel, plural(count, "occurrence"), diff)), nil
}

// toCRLF converts bare "\n" to "\r\n", leaving existing "\r\n" alone.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
