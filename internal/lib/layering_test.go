package lib_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harness9/harness9/internal/lib/srctest"
)

const module = "github.com/harness9/harness9/"

// layer names the layer of a directory (slash-separated, relative to the
// module root).
func layer(dir string) string {
	under := func(p string) bool { return dir == p || strings.HasPrefix(dir, p+"/") }
	switch {
	case under("internal/lib"):
		return "lib"
	case under("internal"), under("cmd"), under("scripts"), under("docs"), under("deploy"):
		return "app"
	case under("examples"):
		return "example"
	}
	return "library"
}

// refused reports why a file in a directory of layer l may not import
// path, or "" when it may.
func refused(l, path string) string {
	rel, ok := strings.CutPrefix(path, module)
	if !ok {
		return ""
	}
	switch {
	case l == "example" && (rel == "internal" || strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/")):
		return "an example is written as a user would write it and imports no internal package"
	case (l == "library" || l == "lib") && layer(rel) == "app":
		return "the library imports nothing of the app (internal/ outside internal/lib, cmd/)"
	}
	return ""
}

// Every Go file of the module, tests and files of every build tag
// included, keeps the layering of doc.go.
func TestLibraryImportsNothingOfTheApp(t *testing.T) {
	root := srctest.Root(t)
	files := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		l := layer(filepath.ToSlash(filepath.Dir(rel)))
		files[l]++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if why := refused(l, p); why != "" {
				t.Errorf("%s imports %s: %s", rel, p, why)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"library", "lib", "app", "example"} {
		if files[l] == 0 {
			t.Errorf("no Go file of the %s layer found: the layers no longer match the tree", l)
		}
	}
}

func TestLayers(t *testing.T) {
	for dir, want := range map[string]string{
		"agent": "library", "tool/builtin": "library", "planning/shellgate": "library",
		"internal/lib/driver": "lib", "internal/cli": "app", "internal": "app", "cmd/harness9": "app",
		"examples/coding-agent": "example", "internalize": "library",
	} {
		if got := layer(dir); got != want {
			t.Errorf("layer(%q) = %s, want %s", dir, got, want)
		}
	}
	for _, c := range []struct{ layer, path, ok string }{
		{"library", module + "internal/lib/atomicfile", "yes"},
		{"library", module + "internal/config", ""},
		{"lib", module + "internal/tui", ""},
		{"library", module + "agent", "yes"},
		{"example", module + "internal/lib/srctest", ""},
		{"example", module + "agent/internal/sessionstate", ""},
		{"example", module + "harness", "yes"},
		{"app", module + "internal/config", "yes"},
		{"library", "fmt", "yes"},
	} {
		if got := refused(c.layer, c.path) == ""; got != (c.ok == "yes") {
			t.Errorf("%s importing %s allowed = %v", c.layer, c.path, got)
		}
	}
}

// The library has no application defaults (DESIGN §8): no code of it
// reads the environment or looks up the user's directories; a program
// passes what it knows as options (harness.WithHome, WithEnv …).
func TestLibraryReadsNoEnvironment(t *testing.T) {
	forbidden := map[string]bool{"Getenv": true, "LookupEnv": true, "Environ": true, "ExpandEnv": true,
		"UserHomeDir": true, "UserConfigDir": true, "UserCacheDir": true}
	// The sandbox's re-executed helper is the confined command's own
	// process: the environment it execs with is the one the sandbox built.
	exempt := map[string]bool{"sandbox/internal/helper": true}
	scanned := false
	srctest.Code(t, srctest.NotLibrary, func(path string, fset *token.FileSet, f *ast.File) {
		scanned = scanned || path == "harness/harness.go"
		if exempt[filepath.ToSlash(filepath.Dir(path))] {
			return
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && forbidden[sel.Sel.Name] {
				t.Errorf("%s calls os.%s: the library takes such values as options", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	})
	if !scanned {
		t.Fatal("the scan did not reach the assembled agent's code")
	}
}
