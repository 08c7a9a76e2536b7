// Package srctest reads the module's own Go code, for tests that keep a
// rule of the code base: a fact spelled once, a decision made in one place.
package srctest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Root returns the module's root: the directory of the go.mod above the
// test's package.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// NotLibrary reports whether the directory dir (relative to the module
// root, slash-separated) holds no library code: the app (cmd, scripts and
// internal/ outside internal/lib), the documentation's tests and the
// examples, which are the library's users. It is Code's skip for rules of
// the library alone.
func NotLibrary(dir string) bool {
	switch dir {
	case "cmd", "scripts", "docs", "examples":
		return true
	}
	return strings.HasPrefix(dir, "internal/") && dir != "internal/lib"
}

// Code calls fn with every Go file of the module that is not a test,
// parsed, and its path relative to the module root (slash-separated). It
// skips hidden directories, testdata and the directories skip reports
// (given their relative path).
func Code(t testing.TB, skip func(dir string) bool, fn func(path string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	root := Root(t)
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || skip != nil && skip(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		seen++
		fn(rel, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatalf("no Go code found below %s", root)
	}
}
