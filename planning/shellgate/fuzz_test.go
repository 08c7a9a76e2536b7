package shellgate

import (
	"bytes"
	"flag"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/harness9/harness9/tool"
	"mvdan.cc/sh/v3/syntax"
)

var fuzzSeeds = []string{
	"ls -la", "cat > f", "echo $(rm x)", "git -C . clean -fd", "sed -n '1,5p;s/a/b/w f' x",
	"find . -exec rm {} \\;", "awk '{print $1}'", "xargs -I{} grep {} f", "cat <<EOF\n$(rm x)\nEOF",
	"for f in *; do echo ${f%.go}; done", "sort -k1,1 -t: f", "git branch --contains HEAD",
	"date -d yesterday +%s", "uniq -f 1 -c", "f(){ :; }", "case x in a) ls;; esac",
	"cat ~/.ssh/id_rsa", "grep -f/etc/passwd x", "for f in a *.go; do wc -l $f; done", "cd src && cat ../x",
	"git -C sub grep -e x -- .", "find . -newer x -name '*.go'", "jq --arg a b . f", "cat */../x < y",
	"find . -name '*.go' | xargs wc -l", "git ls-files | xargs grep -l x", "go list ./...",
	"wc -l $(git ls-files '*.go')", "find . -name '*.go' -exec grep -l main {} +", "awk '$3 > 1' f",
	"sed ':a e id' f", "git grep -iO'id' x", "git config a.b c --get", "uniq in -- -out",
	"git branch --sort=x NAME", "tail -f f &", "sort --files0-from=-", "jq -n '$ ENV'",
	"echo a # c \\\nid", "cat <<EOF\nE\\\nOF\nid\nEOF", "[ -f \"$f\" ]", "cat [!x]ink/y",
	"while read -r l; do echo \"$l\"; done < f", "git ls-files | grep x | xargs -0 head",
}

// FuzzCheck checks a property of every command the gate accepts, with and
// without a workspace: checkAccepted re-reads it independently (every
// simple command, also those xargs and find -exec run, is a literal name on
// the allowlist; no redirection writes; nothing runs in the background;
// every substitution is accepted on its own), and bash must read it the same
// way (checkBashAgrees, when a confined bash is available).
func FuzzCheck(f *testing.F) {
	for _, s := range append(append(fuzzSeeds, allowedCommands...), legitimate...) {
		f.Add(s)
	}
	for _, attacks := range []map[string][]attack{attackClasses, workspaceAttacks} {
		for _, as := range attacks {
			for _, a := range as {
				f.Add(a.cmd)
			}
		}
	}
	ws, err := tool.NewWorkspace(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	// The seeds' reading by bash is TestBashReadsAcceptedCommandsAlike's;
	// asking bash costs milliseconds, so only new inputs are asked.
	fuzzing := flag.Lookup("test.fuzz").Value.String() != "" || flag.Lookup("test.fuzzworker").Value.String() == "true"
	f.Fuzz(func(t *testing.T, cmd string) {
		_ = checkSedScript(cmd)
		_ = checkAwkProgram(arg{value: cmd, static: true})
		accepted := false
		for _, opts := range [][]Option{nil, {WithWorkspace(ws)}} {
			if Check(cmd, opts...) == nil {
				checkAccepted(t, cmd, opts...)
				accepted = true
			}
		}
		if accepted && fuzzing && confinedBash() == nil {
			checkBashAgrees(t, cmd)
		}
	})
}

// checkAccepted is the property of an accepted command, stated without the
// gate's own walk.
func checkAccepted(t *testing.T, cmd string, opts ...Option) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("Check accepted %q, but "+format, append([]any{cmd}, args...)...)
	}
	if !utf8.ValidString(cmd) || strings.ContainsAny(cmd, "\r\x00") {
		fail("it holds a CR, NUL or invalid UTF-8")
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		fail("it does not parse: %v", err)
	}
	substDepth := 0
	var stack []syntax.Node
	syntax.Walk(file, func(n syntax.Node) bool {
		if n == nil {
			if _, ok := stack[len(stack)-1].(*syntax.CmdSubst); ok {
				substDepth--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Background || n.Coprocess || n.Disown {
				fail("%q runs in the background", printNode(n))
			}
			for _, r := range n.Redirs {
				if !readOnlyRedirect(r) {
					fail("%q redirects output to a file", printNode(n))
				}
				if substDepth > 0 && (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) {
					fail("%q has a here-document inside a substitution", printNode(n))
				}
			}
		case *syntax.CallExpr:
			checkAcceptedCall(t, cmd, n)
		case *syntax.FuncDecl, *syntax.DeclClause, *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause,
			*syntax.TestClause, *syntax.CoprocClause, *syntax.Assign, *syntax.CStyleLoop, *syntax.ExtGlob:
			fail("it holds a %T", n)
		case *syntax.CmdSubst:
			substDepth++
			if n.Backquotes {
				fail("it holds a backquote substitution")
			}
			checkAlone(t, cmd, n, n.Stmts, opts)
		case *syntax.ProcSubst:
			checkAlone(t, cmd, n, n.Stmts, opts)
		case *syntax.ParamExp:
			name := ""
			if n.Param != nil {
				name = n.Param.Value
			}
			if !specialParam(name) && !safeEnv[name] && !isLowerIdent(name) {
				fail("it expands $%s", name)
			}
		}
		return true
	})
}

// checkAcceptedCall: a literal name on the allowlist, and for xargs and
// find -exec, a literal reader.
func checkAcceptedCall(t *testing.T, cmd string, c *syntax.CallExpr) {
	t.Helper()
	if len(c.Assigns) > 0 {
		t.Fatalf("Check accepted %q, which assigns a variable", cmd)
	}
	if len(c.Args) == 0 {
		return
	}
	var words []string
	for _, w := range c.Args {
		words = append(words, plainWord(w))
	}
	name := words[0]
	if name == "" || !allowed(name) {
		t.Fatalf("Check accepted %q, which runs %q, not a literal name on the allowlist", cmd, printNode(c.Args[0]))
	}
	var inner []string
	switch name {
	case "xargs":
		// The command is the first word that is not an option or an
		// option's value.
		valued := setOf("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter",
			"--max-args", "--max-procs", "--max-chars")
		for i := 1; i < len(words); i++ {
			if words[i] == "--" {
				if i+1 < len(words) {
					inner = append(inner, words[i+1])
				}
				break
			}
			if !strings.HasPrefix(words[i], "-") {
				inner = append(inner, words[i])
				break
			}
			if valued[words[i]] {
				i++
			}
		}
	case "find":
		// GNU find ends an -exec command at ; or at a + after {}.
		for i := 1; i+1 < len(words); i++ {
			switch words[i] {
			case "-exec", "-execdir", "-ok", "-okdir":
				inner = append(inner, words[i+1])
				for i += 2; i < len(words) && words[i] != ";" && !(words[i] == "+" && words[i-1] == "{}"); i++ {
				}
			}
		}
	}
	for _, n := range inner {
		if _, ok := readers()[n]; !ok {
			t.Fatalf("Check accepted %q, in which %s runs %q, not a simple reader", cmd, name, n)
		}
	}
}

// plainWord is a word's value when it is made of literal text and quotes
// only, else "".
func plainWord(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?") || strings.Contains(p.Value, "{") && (strings.Contains(p.Value, ",") || strings.Contains(p.Value, "..")) {
				return ""
			}
			b.WriteString(strings.ReplaceAll(p.Value, `\`, ""))
		case *syntax.SglQuoted:
			if p.Dollar {
				return ""
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return ""
		}
	}
	return b.String()
}

func readOnlyRedirect(r *syntax.Redirect) bool {
	v := plainWord(r.Word)
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.DplIn, syntax.DplOut:
		if isDigits(v) || v == "-" {
			return true
		}
	}
	return r.Op != syntax.RdrInOut && (v == "/dev/null" || v == "/dev/stdout" || v == "/dev/stderr")
}

// checkAlone: a substitution that does not use the variables of an
// enclosing loop is accepted on its own.
func checkAlone(t *testing.T, cmd string, n syntax.Node, stmts []*syntax.Stmt, opts []Option) {
	t.Helper()
	usesVars := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.ParamExp); ok {
			usesVars = true
		}
		return true
	})
	if usesVars || len(stmts) == 0 {
		return
	}
	var buf bytes.Buffer
	if err := syntax.NewPrinter().Print(&buf, &syntax.File{Stmts: stmts}); err != nil {
		return
	}
	if err := Check(buf.String(), opts...); err != nil {
		t.Fatalf("Check accepted %q, but refuses its substitution %q on its own: %v", cmd, buf.String(), err)
	}
}
