package builtin

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/tool"
)

// project builds a small repository-like tree with a .gitignore.
func project(t testing.TB) (ws *tool.Workspace, root string) {
	t.Helper()
	ws, root = newWS(t)
	files(t, root, map[string]string{
		".gitignore":           "*.log\nbuild/\n/root-only.txt\n!keep.log\n",
		".git/HEAD":            "ref: refs/heads/main\n",
		".git/config":          "needle\n",
		"main.go":              "package main // needle\n",
		"keep.log":             "needle kept\n",
		"debug.log":            "needle ignored\n",
		"root-only.txt":        "needle ignored\n",
		"build/out.go":         "needle ignored\n",
		"pkg/a.go":             "package pkg\n\n// needle one\nfunc A() {}\n",
		"pkg/a_test.go":        "package pkg // needle\n",
		"pkg/root-only.txt":    "needle anchored pattern does not apply here\n",
		"pkg/sub/.gitignore":   "gen_*.go\n",
		"pkg/sub/gen_x.go":     "needle ignored by nested gitignore\n",
		"pkg/sub/real.go":      "needle nested\n",
		"pkg/sub/deep/leaf.md": "# needle\n",
		"img.png":              "\x89PNG\r\n\x1a\n\x00\x00needle",
	})
	return ws, root
}

func TestListFiles(t *testing.T) {
	ws, _ := project(t)
	lf := NewListFiles(ws)
	out := ok(t, lf, ListFilesInput{})
	want := "./\n  .gitignore\n  img.png\n  keep.log\n  main.go\n  pkg/\n    a.go\n    a_test.go\n    root-only.txt\n    sub/"
	if out != want {
		t.Errorf("list_files =\n%s\nwant\n%s", out, want)
	}
	out = ok(t, lf, ListFilesInput{Path: "pkg", Depth: 5})
	for _, w := range []string{"pkg/\n", "  sub/\n", "    deep/\n      leaf.md", "    .gitignore", "    real.go"} {
		if !strings.Contains(out, w) {
			t.Errorf("list_files pkg lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "gen_x.go") {
		t.Errorf("nested .gitignore not respected:\n%s", out)
	}
	fails(t, lf, ListFilesInput{Path: "main.go"}, "is a file", "read_file")
	fails(t, lf, ListFilesInput{Path: "nope"}, "does not exist")
}

func TestListFilesCap(t *testing.T) {
	ws, root := newWS(t)
	m := map[string]string{}
	for i := range listMaxEntries + 50 {
		m[filepath.Join("d", "f"+strconv.Itoa(i))] = ""
	}
	files(t, root, m)
	out := ok(t, NewListFiles(ws), ListFilesInput{})
	if !strings.Contains(out, "listing cut at 500 entries") || strings.Count(out, "\n") > listMaxEntries+5 {
		t.Errorf("cap not applied: %d lines, tail %q", strings.Count(out, "\n"), out[len(out)-80:])
	}
}

func TestListFilesSymlinks(t *testing.T) {
	ws, root := newWS(t)
	files(t, root, map[string]string{"real/f.txt": "x"})
	os.Symlink("real", filepath.Join(root, "alias"))
	os.Symlink("real/f.txt", filepath.Join(root, "flink"))
	os.Symlink("missing", filepath.Join(root, "dangling"))
	out := ok(t, NewListFiles(ws), ListFilesInput{})
	if !strings.Contains(out, "  alias/@\n") || !strings.Contains(out, "  flink@\n") || strings.Contains(out, "dangling") {
		t.Errorf("symlinks listed wrong:\n%s", out)
	}
}

func TestGlob(t *testing.T) {
	ws, root := project(t)
	g := NewGlob(ws)
	// Make the order by mtime observable: a.go newest.
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"main.go", "pkg/a_test.go", "pkg/sub/real.go"} {
		os.Chtimes(filepath.Join(root, p), old, old)
	}
	out := ok(t, g, GlobInput{Pattern: "**/*.go"})
	if want := "pkg/a.go\nmain.go\npkg/a_test.go\npkg/sub/real.go"; out != want {
		t.Errorf("glob **/*.go =\n%s\nwant\n%s", out, want)
	}
	if out := ok(t, g, GlobInput{Pattern: "*.go", Path: "pkg"}); out != "pkg/a.go\npkg/a_test.go" {
		t.Errorf("glob *.go in pkg = %q", out)
	}
	if out := ok(t, g, GlobInput{Pattern: "pkg/**/*.{md,go}"}); !strings.Contains(out, "pkg/sub/deep/leaf.md") || strings.Contains(out, "gen_x") {
		t.Errorf("glob with braces = %q", out)
	}
	if out := ok(t, g, GlobInput{Pattern: "*.log"}); out != "keep.log" {
		t.Errorf("glob *.log = %q (debug.log is ignored, keep.log re-included)", out)
	}
	if out := ok(t, g, GlobInput{Pattern: filepath.Join(root, "pkg", "*.go")}); out != "pkg/a.go\npkg/a_test.go" {
		t.Errorf("absolute glob = %q", out)
	}
	if out := ok(t, g, GlobInput{Pattern: "**/HEAD"}); !strings.HasPrefix(out, "no files match") {
		t.Errorf(".git not skipped: %q", out)
	}
	// An ignored directory asked for by name is searched.
	if out := ok(t, g, GlobInput{Pattern: "*.go", Path: "build"}); out != "build/out.go" {
		t.Errorf("glob in an explicitly named ignored dir = %q", out)
	}
	fails(t, g, GlobInput{Pattern: "[abc"}, "not a valid glob")
	fails(t, g, GlobInput{}, "pattern is required")
}
