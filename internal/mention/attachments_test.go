package mention

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// Files a front end names (an editor's resource links) are read through
// the workspace and its rules; text the user gave is attached as given;
// all of them share the limits and the fence of @path attachments.
func TestAttachmentsOfResources(t *testing.T) {
	ws, root := workspace(t)
	var a Attachments
	a.File(context.Background(), ws, "main.go")
	a.File(context.Background(), ws, ".ssh/id_rsa")
	a.File(context.Background(), ws, filepath.Join(root, "..", "elsewhere.txt"))
	a.File(context.Background(), ws, "image.bin")
	a.Text("sel.txt", "chosen ``` text")
	a.Skip("pic.png", "unreadable")
	a.Mentions(ws, "see @main.go again and @notes/todo.md")
	got := a.Append("prompt")
	if !strings.HasPrefix(got, "prompt\n\nFiles the user attached:") || strings.Count(got, "Files the user attached:") != 1 {
		t.Fatalf("attachments:\n%s", got)
	}
	if strings.Count(got, `<file path="main.go">`) != 1 || !strings.Contains(got, `<file path="notes/todo.md">`) {
		t.Fatalf("main.go should be attached once, todo.md once:\n%s", got)
	}
	if !strings.Contains(got, "<file path=\"sel.txt\">\n````\nchosen ``` text\n````\n</file>") {
		t.Fatalf("the given text is not fenced beyond its own backticks:\n%s", got)
	}
	if strings.Contains(got, "PRIVATE KEY") {
		t.Fatal("a denied file was attached")
	}
	sum := Summary(a.Report())
	for _, want := range []string{"attached main.go (3 lines), sel.txt (1 line), notes/todo.md (1 line)", ".ssh/id_rsa:", "elsewhere.txt:", "image.bin: a binary file", "pic.png: unreadable"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q does not say %q", sum, want)
		}
	}
}
