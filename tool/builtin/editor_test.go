package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

// bufferEditor serves unsaved buffers and keeps what it is asked to
// write (as an editor would, in its buffers).
type bufferEditor struct {
	buffers map[string]string
	written map[string]string
}

func (e *bufferEditor) ReadTextFile(_ context.Context, path string) (string, error) {
	if s, ok := e.buffers[path]; ok {
		return s, nil
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

func (e *bufferEditor) WriteTextFile(_ context.Context, path, content string) error {
	e.written[path] = content
	e.buffers[path] = content
	return nil
}

// The file tools see what the user sees in the editor, unsaved changes
// included, and their writes land in the editor's buffers.
func TestFileToolsWorkOnTheEditorsBuffers(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files(t, root, map[string]string{"a.go": "saved\n"})
	ed := &bufferEditor{buffers: map[string]string{filepath.Join(root, "a.go"): "line one\nunsaved two\n"}, written: map[string]string{}}
	ws, err := tool.NewWorkspace(root, tool.WithHome(""), tool.WithEditor(ed))
	if err != nil {
		t.Fatal(err)
	}
	if out := ok(t, NewReadFile(ws), map[string]any{"path": "a.go", "offset": 2}); !strings.Contains(out, "2\tunsaved two") || strings.Contains(out, "saved\n") {
		t.Fatalf("read_file showed %q", out)
	}
	edit := NewEditFile(ws)
	in, _ := json.Marshal(map[string]any{"path": "a.go", "old_string": "unsaved two", "new_string": "edited two"})
	c, changed := edit.PreviewChange(context.Background(), in)
	if !changed || c.Old != "line one\nunsaved two\n" || c.New != "line one\nedited two\n" || c.Created {
		t.Fatalf("PreviewChange = %+v, %v", c, changed)
	}
	ok(t, edit, map[string]any{"path": "a.go", "old_string": "unsaved two", "new_string": "edited two"})
	ok(t, NewWriteFile(ws), map[string]any{"path": "b.txt", "content": "new file\n"})
	if ed.written[filepath.Join(root, "a.go")] != "line one\nedited two\n" || ed.written[filepath.Join(root, "b.txt")] != "new file\n" {
		t.Fatalf("the editor was given %v", ed.written)
	}
	if readFile(t, filepath.Join(root, "a.go")) != "saved\n" {
		t.Fatal("the edit went to the disk behind the editor's back")
	}
}

func TestPreviewChange(t *testing.T) {
	ws, root := newWS(t)
	files(t, root, map[string]string{"a.txt": "x = 1\n", "bin": "a\x00b"})
	preview := func(tl tool.ChangePreviewer, input map[string]any) (tool.FileChange, bool) {
		raw, _ := json.Marshal(input)
		return tl.PreviewChange(context.Background(), raw)
	}
	edit, write := NewEditFile(ws), NewWriteFile(ws)
	cases := []struct {
		name    string
		tl      tool.ChangePreviewer
		input   map[string]any
		want    tool.FileChange
		changed bool
	}{
		{"edit", edit, map[string]any{"path": "a.txt", "old_string": "1", "new_string": "2"}, tool.FileChange{Path: "a.txt", Old: "x = 1\n", New: "x = 2\n"}, true},
		{"edit, text not there", edit, map[string]any{"path": "a.txt", "old_string": "nope", "new_string": "2"}, tool.FileChange{}, false},
		{"edit creates", edit, map[string]any{"path": "new.txt", "old_string": "", "new_string": "hi"}, tool.FileChange{Path: "new.txt", New: "hi", Created: true}, true},
		{"edit outside", edit, map[string]any{"path": "../x", "old_string": "", "new_string": "hi"}, tool.FileChange{}, false},
		{"write over", write, map[string]any{"path": "a.txt", "content": "y\n"}, tool.FileChange{Path: "a.txt", Old: "x = 1\n", New: "y\n"}, true},
		{"write new", write, map[string]any{"path": "d/n.txt", "content": "n"}, tool.FileChange{Path: "d/n.txt", New: "n", Created: true}, true},
		{"write over binary", write, map[string]any{"path": "bin", "content": "t"}, tool.FileChange{}, false},
		{"write outside", write, map[string]any{"path": "/etc/passwd", "content": "t"}, tool.FileChange{}, false},
	}
	for _, c := range cases {
		got, changed := preview(c.tl, c.input)
		if got != c.want || changed != c.changed {
			t.Errorf("%s: %+v, %v; want %+v, %v", c.name, got, changed, c.want, c.changed)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "d")); err == nil {
		t.Error("a preview made a directory")
	}
}

func TestKinds(t *testing.T) {
	ws, _ := newWS(t)
	want := map[string]tool.Kind{"read_file": tool.KindRead, "write_file": tool.KindEdit, "edit_file": tool.KindEdit,
		"list_files": tool.KindSearch, "glob": tool.KindSearch, "search_files": tool.KindSearch, "bash": tool.KindExecute}
	for _, tl := range All(ws) {
		if got := tool.KindOf(tl); got != want[tl.Name()] {
			t.Errorf("%s: kind %q, want %q", tl.Name(), got, want[tl.Name()])
		}
	}
}
