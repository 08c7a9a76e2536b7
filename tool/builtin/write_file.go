package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/harness9/harness9/tool"
)

//go:embed write_file.md
var writeFileDescription string

// WriteFileInput is the input of write_file.
type WriteFileInput struct {
	Path    string `json:"path" jsonschema:"file to write, relative to the workspace root"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

// WriteFile is the write_file tool.
type WriteFile struct {
	tool.Spec
	ws *tool.Workspace
}

// NewWriteFile returns the write_file tool.
func NewWriteFile(ws *tool.Workspace) *WriteFile {
	return &WriteFile{Spec: tool.NewSpec[WriteFileInput]("write_file", writeFileDescription), ws: ws}
}

// Execute implements tool.Tool.
func (t *WriteFile) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, t.Name(), input, t.write)
}

func (t *WriteFile) write(ctx context.Context, in WriteFileInput) (tool.Result, error) {
	if in.Path == "" {
		return tool.Errorf("write_file: path is required"), nil
	}
	path, err := t.ws.Resolve(in.Path)
	if err != nil {
		return tool.Failed("write_file", err), nil
	}
	data := []byte(in.Content)
	created, err := t.ws.WriteText(ctx, in.Path, data)
	if err != nil {
		return tool.Failed("write_file", err), nil
	}
	verb := "overwrote"
	if created {
		verb = "created"
	}
	return tool.Text(fmt.Sprintf("%s %s (%s, %s)", verb, t.ws.Rel(path),
		plural(len(data), "byte"), plural(countLines(data), "line"))), nil
}

// countLines counts lines the way an editor shows them: a final line
// without a newline still counts.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}
