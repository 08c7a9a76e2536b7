package builtin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

func TestEditPreviewIsTheDiffOfTheFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tool.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	var p tool.Previewer = NewEditFile(ws)
	got := p.Preview(json.RawMessage(`{"path":"a.txt","old_string":"two","new_string":"2"}`))
	for _, want := range []string{"--- a/a.txt", "+++ b/a.txt", "-two", "+2", " one"} {
		if !strings.Contains(got, want) {
			t.Errorf("preview lacks %q:\n%s", want, got)
		}
	}
	// Outside the workspace the file is not read; the preview shows only
	// the strings.
	got = p.Preview(json.RawMessage(`{"path":"../x","old_string":"secret","new_string":"s"}`))
	if strings.Contains(got, " one") || !strings.Contains(got, "-secret") {
		t.Errorf("preview of a path outside the workspace:\n%s", got)
	}
}

func TestWritePreviewCapsContent(t *testing.T) {
	ws, err := tool.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(WriteFileInput{Path: "big.txt", Content: strings.Repeat("x", previewMax+10)})
	got := NewWriteFile(ws).Preview(in)
	if !strings.HasPrefix(got, "write big.txt (4010 bytes)\n") || !strings.HasSuffix(got, "[... 10 more bytes]") {
		t.Errorf("preview = %q…", got[:60])
	}
}

func TestProperties(t *testing.T) {
	ws, err := tool.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := NewBash(ws)
	if s := b.Scope(json.RawMessage(`{"command":"git diff"}`)); s.Command != "git diff" {
		t.Errorf("bash scope = %+v", s)
	}
	if got := b.Preview(json.RawMessage(`{"command":"ls -l"}`)); got != "$ ls -l" {
		t.Errorf("bash preview = %q", got)
	}
	if got := b.Summary(nil, tool.Text("a\nb\nexit code: 0")); got != "exit code: 0 · a … (+1 line)" {
		t.Errorf("bash summary = %q", got)
	}
	if got := b.Summary(nil, tool.Text("(no output)\nexit code: 1")); got != "exit code: 1 · no output" {
		t.Errorf("bash summary = %q", got)
	}
	if s := NewEditFile(ws).Scope(json.RawMessage(`{"path":"src/a.go"}`)); s.Path != "src/a.go" {
		t.Errorf("edit scope = %+v", s)
	}
	if got := NewReadFile(ws).Summary(nil, tool.Text("     1\ta\n     2\tb\n(showing lines 1-2 of 9; read more with offset=3)")); got != "read 2 lines (lines 1-2 of 9)" {
		t.Errorf("read summary = %q", got)
	}
	for _, tl := range []tool.Tool{NewWriteFile(ws), NewEditFile(ws)} {
		if c, ok := tl.(tool.Contained); !ok || !c.Contained() {
			t.Errorf("%s does not report itself contained by the workspace", tl.Name())
		}
	}
}
