package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// Every numeric default of the engine's limits is defined once, in the
// package that owns it (agent, tool, planning, compact), and config refers
// to it: a number typed again here would silently stop following a change
// there. The Config literal Load starts from holds no number.
func TestLoadRetypesNoDefault(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "config.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if id, ok := cl.Type.(*ast.Ident); !ok || id.Name != "Config" {
			return true
		}
		found = true
		for _, el := range cl.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			ast.Inspect(kv.Value, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && (lit.Kind == token.INT || lit.Kind == token.FLOAT) {
					t.Errorf("%s: the default of %s is typed here (%s); refer to the constant of the package that owns it",
						fset.Position(lit.Pos()), kv.Key, lit.Value)
				}
				return true
			})
		}
		return false
	})
	if !found {
		t.Fatal("no Config literal in config.go: this test no longer looks where the defaults are")
	}
}
