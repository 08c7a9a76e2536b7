package permission

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzCommandRule holds the property a command rule rests on: whenever
// bash(git diff:*) matches a line, every command bash would run for it is
// "git diff ...", with no output-file option, and nothing else runs:
// walking the parsed line finds no call that is not git diff, no
// substitution, no redirection to a file.
func FuzzCommandRule(f *testing.F) {
	for _, s := range []string{
		"git diff", "git diff; rm -rf x", "git diff $(rm x)", "git diff --output=f",
		"git diff && git diff --stat", "git diff | tee f", "git diff > f", "git diff 2>&1",
		"git diff `x`", "x=1 git diff", "git diff <(x)", "git diff\nrm x", "git diff # x",
		"git diff '$(x)'", "git diff \"a b\"", "git diff || true",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !matchCommand("git diff:*", line) {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("matched a line that does not parse: %q", line)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp,
				*syntax.FuncDecl, *syntax.Subshell, *syntax.Block, *syntax.Assign:
				t.Fatalf("matched %q, which holds a %T", line, n)
			case *syntax.Redirect:
				if w, _ := literal(n.Word); w != "/dev/null" && !isDigits(w) && w != "-" {
					t.Fatalf("matched %q, which redirects to %q", line, w)
				}
			case *syntax.CallExpr:
				var words []string
				for _, a := range n.Args {
					w, ok := literal(a)
					if !ok {
						t.Fatalf("matched %q with a word that expands", line)
					}
					words = append(words, w)
				}
				if len(words) < 2 || words[0] != "git" || words[1] != "diff" {
					t.Fatalf("matched %q, which runs %q", line, words)
				}
				for _, w := range words[2:] {
					if strings.HasPrefix(w, "--output") || strings.HasPrefix(w, "-o") {
						t.Fatalf("matched %q, which writes a file (%s)", line, w)
					}
				}
			}
			return true
		})
	})
}
