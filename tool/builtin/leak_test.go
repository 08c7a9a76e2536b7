//go:build unix

package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

// No file tool shows the model the name of a file outside the workspace,
// whether it succeeds or refuses: not through a link to a directory
// outside, nor a glob or walk that reaches one, nor an error's text.
func TestFileToolsNameNothingOutside(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(tmp, "ws"), filepath.Join(tmp, "outside")
	const canary = "CANARY-outside-name"
	for _, p := range []string{filepath.Join(root, "src", "a.go"), filepath.Join(outside, canary, canary+".go")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package a // needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A directory only its owner may enter: as a normal user, resolving a
	// path through it fails, and the error must not name it.
	locked := filepath.Join(outside, canary, "locked")
	if err := os.Mkdir(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(outside, canary), 0o711); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o700) })
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"locked":   filepath.Join(locked, "x", "y"),
		"out":      outside,
		"deep":     filepath.Join(outside, canary),
		"dangling": filepath.Join(outside, canary, "gone", "x"),
		"file":     filepath.Join(outside, canary, canary+".go"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tool.NewWorkspace(root, tool.WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		tl    tool.Tool
		input any
	}{
		{NewReadFile(ws), ReadFileInput{Path: "out"}},
		{NewReadFile(ws), ReadFileInput{Path: "file"}},
		{NewReadFile(ws), ReadFileInput{Path: "deep/.."}},
		{NewReadFile(ws), ReadFileInput{Path: "dangling"}},
		{NewReadFile(ws), ReadFileInput{Path: "locked"}},
		{NewReadFile(ws), ReadFileInput{Path: "locked/z"}},
		{NewListFiles(ws), ListFilesInput{Path: "locked"}},
		{NewListFiles(ws), ListFilesInput{}},
		{NewListFiles(ws), ListFilesInput{Path: "out"}},
		{NewListFiles(ws), ListFilesInput{Path: "deep"}},
		{NewGlob(ws), GlobInput{Pattern: "**/*"}},
		{NewGlob(ws), GlobInput{Pattern: "out/*"}},
		{NewGlob(ws), GlobInput{Pattern: "*/*"}},
		{NewGlob(ws), GlobInput{Pattern: "*", Path: "out"}},
		{NewGlob(ws), GlobInput{Pattern: filepath.Join(outside, "*")}},
		{NewSearchFiles(ws), SearchFilesInput{Pattern: "needle"}},
		{NewSearchFiles(ws), SearchFilesInput{Pattern: "needle", Path: "out"}},
		{NewSearchFiles(ws), SearchFilesInput{Pattern: "needle", Glob: "**/*.go"}},
		{NewWriteFile(ws), WriteFileInput{Path: "deep/x", Content: "x"}},
		{NewWriteFile(ws), WriteFileInput{Path: "dangling", Content: "x"}},
		{NewEditFile(ws), EditFileInput{Path: "file", OldString: "a", NewString: "b"}},
	}
	for _, c := range calls {
		res := call(t, c.tl, c.input)
		if strings.Contains(res.Output, canary) {
			t.Errorf("%s %+v shows a name outside the workspace:\n%s", c.tl.Name(), c.input, res.Output)
		}
	}
}
