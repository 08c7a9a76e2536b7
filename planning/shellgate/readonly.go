package shellgate

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// checkReadOnly walks every node of a parsed command — pipelines, lists,
// subshells, blocks, loops, command and process substitutions — and
// refuses what could change anything, run an unchecked program or print
// the environment.
func checkReadOnly(file *syntax.File) error {
	bound := boundVariables(file)
	var firstErr error
	syntax.Walk(file, func(n syntax.Node) bool {
		if firstErr != nil {
			return false
		}
		if n == nil { // Walk's end-of-children call
			return true
		}
		firstErr = checkNode(n, bound)
		return firstErr == nil
	})
	return firstErr
}

// checkNode vets one syntax node. Children are visited by syntax.Walk, so
// nested statements (substitutions, loop bodies) are checked on their own.
func checkNode(n syntax.Node, bound scopes) error {
	switch n := n.(type) {
	case *syntax.Stmt:
		switch {
		case n.Background:
			return refuse(n, "background jobs (&) would outlive the call; run the command in the foreground")
		case n.Coprocess || n.Disown:
			return refuse(n, "coprocesses and disowned jobs are not allowed in Plan Mode")
		}
		for _, r := range n.Redirs {
			if err := checkRedirect(n, r); err != nil {
				return err
			}
		}
	case *syntax.CallExpr:
		return checkCall(n)
	case *syntax.DeclClause:
		if declPrints(n) {
			return refuse(n, n.Variant.Value+" without a name "+printsEnvironment)
		}
		return refuse(n, "declare/export/local/readonly change the shell environment; they are not needed to explore")
	case *syntax.LetClause, *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.CStyleLoop:
		return refuse(n, "arithmetic is not allowed in Plan Mode (it can assign variables and evaluate array subscripts that run commands); compute the value yourself")
	case *syntax.TestClause:
		return refuse(n, "[[ ... ]] is not allowed in Plan Mode (its arithmetic operands can run commands); use [ ... ] or test")
	case *syntax.FuncDecl, *syntax.TestDecl:
		return refuse(n, "defining shell functions is not allowed in Plan Mode; run the commands directly")
	case *syntax.CoprocClause:
		return refuse(n, "coprocesses are not allowed in Plan Mode")
	case *syntax.WordIter:
		// A loop variable is an assignment: `for PATH in /tmp; do ls; done`
		// would make the next command resolve from another directory.
		if !isLowerIdent(n.Name.Value) {
			return &CommandError{Command: "for " + n.Name.Value,
				Reason: fmt.Sprintf("the loop variable %q could be an environment variable bash relies on; use a lower-case name such as f", n.Name.Value)}
		}
	case *syntax.ParamExp:
		return checkParamExp(n, bound)
	case *syntax.Assign:
		return refuse(n, "variable assignments are not allowed in Plan Mode")
	case *syntax.ProcSubst:
		if n.Op != syntax.CmdIn && n.Op != syntax.CmdOut {
			return refuse(n, "this process substitution is not bash")
		}
	case *syntax.SglQuoted, *syntax.DblQuoted, *syntax.Lit, *syntax.Word,
		*syntax.CmdSubst, *syntax.File, *syntax.Comment, *syntax.Subshell, *syntax.Block,
		*syntax.BinaryCmd, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause,
		*syntax.CaseClause, *syntax.CaseItem, *syntax.TimeClause, *syntax.Redirect:
		// Structure only; what they contain is visited separately.
	default:
		return refuse(n, fmt.Sprintf("the shell construct %T is not allowed in Plan Mode", n))
	}
	return nil
}

// declPrints reports whether a declare/export/... clause has no names, only
// options: it prints variables instead of setting them.
func declPrints(d *syntax.DeclClause) bool {
	for _, a := range d.Args {
		if !a.Naked || a.Name != nil {
			return false
		}
		if v, ok := literal(a.Value); !ok || !strings.HasPrefix(v.value, "-") {
			return false
		}
	}
	return true
}

// safeEnv are the environment variables Plan Mode may expand or print:
// they describe the machine and the user and are never credentials.
var safeEnv = setOf("HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "PATH", "LANG", "LANGUAGE",
	"LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TERM", "TMPDIR", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE",
	"UID", "EUID", "PPID", "BASHPID", "BASH_VERSION", "SHLVL", "RANDOM", "SECONDS", "LINENO", "IFS",
	"COLUMNS", "LINES", "EDITOR", "VISUAL", "PAGER", "GOPATH", "GOROOT", "GOOS", "GOARCH",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR")

// specialParam reports whether name is a positional or special parameter
// ($1, $@, $?, $$ ...), which the command line itself determines.
func specialParam(name string) bool {
	return isDigits(name) || (len(name) == 1 && strings.Contains("@*#?-$!_", name))
}

func checkParamExp(p *syntax.ParamExp, bound scopes) error {
	if p.Param == nil || p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 {
		return refuse(p, "this parameter expansion is not bash")
	}
	name := p.Param.Value
	switch {
	case p.Excl:
		return refuse(p, "indirect expansion ${!name} is not allowed in Plan Mode")
	case p.Index != nil || p.Slice != nil:
		return refuse(p, "array subscripts and substring offsets are arithmetic, which is not allowed in Plan Mode")
	case p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull):
		return refuse(p, "${name=value} assigns a variable, which is not allowed in Plan Mode")
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps:
		if lit, ok := literal(p.Exp.Word); !ok || strings.ContainsAny(lit.value, "PAEK") {
			return refuse(p, "${name@P}, ${name@E}, ${name@A} and ${name@K} can evaluate code or escapes; not allowed in Plan Mode")
		}
	}
	if !specialParam(name) && !safeEnv[name] && !bound.has(name, p.Pos()) {
		return refuse(p, "$"+name+" may hold a secret: this command does not set it, so it comes from the environment, where API keys and tokens live; "+
			"in Plan Mode only the variables of for and while-read loops and non-secret ones such as $HOME, $PWD, $USER or $PATH are expanded")
	}
	return nil
}

// scopes records where a variable holds a value the command gave it: the
// body of a for loop over its name, or of a `while read NAME` loop.
type scopes map[string][][2]uint

func (s scopes) has(name string, at syntax.Pos) bool {
	for _, r := range s[name] {
		if at.Offset() >= r[0] && at.Offset() < r[1] {
			return true
		}
	}
	return false
}

func boundVariables(file *syntax.File) scopes {
	s := scopes{}
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ForClause:
			if it, ok := n.Loop.(*syntax.WordIter); ok {
				s[it.Name.Value] = append(s[it.Name.Value], [2]uint{n.DoPos.Offset(), n.DonePos.Offset()})
			}
		case *syntax.WhileClause:
			// while read -r a b; do ...: the body runs only after read
			// assigned every name.
			if n.Until || len(n.Cond) != 1 {
				break
			}
			c, ok := n.Cond[0].Cmd.(*syntax.CallExpr)
			if !ok || n.Cond[0].Negated {
				break
			}
			if name, args, ok := callArgs(c); ok && name.value == "read" {
				for _, v := range readNames(args) {
					s[v] = append(s[v], [2]uint{n.DoPos.Offset(), n.DonePos.Offset()})
				}
			}
		}
		return true
	})
	return s
}

// checkRedirect allows input redirection and here-documents, descriptor
// duplication and closing, and output only to /dev/null (or back to the
// terminal streams). Everything else could create or truncate a file.
func checkRedirect(stmt *syntax.Stmt, r *syntax.Redirect) error {
	if r.N != nil && !isDigits(r.N.Value) {
		return refuse(stmt, "named file descriptors ({var}>) assign variables; not allowed in Plan Mode")
	}
	target, static := literal(r.Word)
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return nil
	case syntax.DplIn, syntax.DplOut:
		if static && !target.glob && (isDigits(target.value) || target.value == "-") {
			return nil
		}
		if r.Op == syntax.DplIn {
			return refuse(stmt, "input duplication must name a file descriptor number")
		}
	case syntax.RdrInOut:
		return refuse(stmt, "<> opens a file for writing (and creates it); use < to read")
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
	default:
		return refuse(stmt, "this redirection is not bash")
	}
	if static && !target.glob && !target.tilde && harmlessSink(target.value) {
		return nil
	}
	return refuse(stmt, "output redirection to a file writes to disk; in Plan Mode only >/dev/null, 2>/dev/null and descriptor duplication like 2>&1 are allowed — read the output directly instead")
}

func harmlessSink(path string) bool {
	switch path {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return true
	}
	return false
}
