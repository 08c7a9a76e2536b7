package tool_test

import (
	"go/ast"
	"go/token"
	"strings"
	"testing"

	"github.com/harness9/harness9/internal/lib/srctest"
	"github.com/harness9/harness9/tool"
)

// The data directory's name is spelled once, in tool.DataDirName: every
// other string of the module's code that names it is built from the
// constant, so the deny list, the project's skills, commands and agents,
// the plan base, the config files and the messages naming them cannot
// drift apart. Tests may spell it: they check what a user sees.
func TestDataDirNameIsSpelledOnce(t *testing.T) {
	srctest.Code(t, nil, func(path string, fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok && path == "tool/workspace.go" && len(vs.Names) == 1 && vs.Names[0].Name == "DataDirName" {
				return false // the constant itself
			}
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, tool.DataDirName) {
				t.Errorf("%s spells %q; use tool.DataDirName", fset.Position(lit.Pos()), tool.DataDirName)
			}
			return true
		})
	})
}
