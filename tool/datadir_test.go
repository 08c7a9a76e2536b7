package tool_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

// The data directory's name is spelled once, in tool.DataDirName: every
// other string of the module's code that names it is built from the
// constant, so the deny list, the project's skills, commands and agents,
// the plan base, the config files and the messages naming them cannot
// drift apart. Tests may spell it: they check what a user sees.
func TestDataDirNameIsSpelledOnce(t *testing.T) {
	root := moduleRoot(t)
	var spelled []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "DataDirName" &&
				f.Name.Name == "tool" {
				return false // the constant itself
			}
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, tool.DataDirName) {
				spelled = append(spelled, fset.Position(lit.Pos()).String())
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range spelled {
		t.Errorf("%s spells %q; use tool.DataDirName", at, tool.DataDirName)
	}
}

// moduleRoot is the directory of the go.mod above the test's package.
func moduleRoot(t *testing.T) string {
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
