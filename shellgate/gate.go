package planning

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/harness9/harness9/tool"
	"mvdan.cc/sh/v3/syntax"
)

// maxGatedCommand bounds the command text the read-only gate will parse. A
// planning command longer than this is not exploration.
const maxGatedCommand = 64 << 10

// CommandError is why CheckReadOnlyCommand refused a shell command: the
// offending part of the command and the reason, worded for the model.
type CommandError struct {
	Command string // the simple command, redirect or construct that was refused
	Reason  string
	// Path is the path the command would read outside the workspace, when
	// that is why it was refused (CheckPlanCommand with a workspace).
	Path string
}

func (e *CommandError) Error() string {
	if e.Command == "" {
		return e.Reason
	}
	return fmt.Sprintf("`%s`: %s", e.Command, e.Reason)
}

// CheckReadOnlyCommand reports whether a bash command line is safe to run in
// Plan Mode, where nothing may change. It parses the command (it never runs
// anything) and walks every command in it — pipelines, lists, subshells,
// blocks, loops, command and process substitutions — requiring each simple
// command to be a literal name on a read-only allowlist with arguments that
// cannot turn it into a writer (find -delete, sed -i, git checkout, ...).
// Output redirection is allowed only to /dev/null and between descriptors.
//
// It also refuses what would print the environment, where API keys live:
// env, printenv, set and export without arguments, and expansions of
// upper-case variables other than non-secret ones such as $HOME or $PATH.
//
// The gate is deliberately conservative: whatever it cannot prove read-only
// (eval, interpreters, assignments, arithmetic, functions, non-literal
// command names) is refused with an error that names the command and why.
func CheckReadOnlyCommand(command string) error {
	_, err := parseReadOnly(command)
	return err
}

// CheckPlanCommand is the bash gate of Plan Mode: CheckReadOnlyCommand, and
// when ws is not nil, every path the command reads (file operands, values of
// options that name a file, input redirections, find's starting points, cd
// targets, glob matches) must resolve inside ws and outside its deny list,
// as for the file tools: read-only does not mean the agent may read anything
// on the machine. A path refusal is a *CommandError with Path set.
func CheckPlanCommand(command string, ws *tool.Workspace) error {
	file, err := parseReadOnly(command)
	if err != nil || ws == nil {
		return err
	}
	return checkPaths(file, ws)
}

// parseReadOnly parses a command and checks that it is read-only.
func parseReadOnly(command string) (*syntax.File, error) {
	if strings.TrimSpace(command) == "" {
		return nil, &CommandError{Reason: "the command is empty"}
	}
	if len(command) > maxGatedCommand {
		return nil, &CommandError{Reason: fmt.Sprintf("the command is longer than %d bytes", maxGatedCommand)}
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, &CommandError{Reason: fmt.Sprintf("the command could not be parsed (%v), so it cannot be verified as read-only", err)}
	}
	var firstErr error
	syntax.Walk(file, func(n syntax.Node) bool {
		if firstErr != nil {
			return false
		}
		if n == nil { // Walk's end-of-children call
			return true
		}
		if err := checkNode(n); err != nil {
			firstErr = err
			return false
		}
		return true
	})
	return file, firstErr
}

// checkNode vets one syntax node. Children are visited by syntax.Walk, so
// nested statements (substitutions, loop bodies) are checked on their own.
func checkNode(n syntax.Node) error {
	switch n := n.(type) {
	case *syntax.Stmt:
		if n.Coprocess {
			return refuse(n, "coprocesses are not allowed in Plan Mode")
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
		return refuse(n, "[[ ... ]] is not allowed in Plan Mode (its arithmetic operands can run commands); use [ ... ] or test with literal arguments")
	case *syntax.FuncDecl:
		return refuse(n, "defining shell functions is not allowed in Plan Mode; run the commands directly")
	case *syntax.CoprocClause:
		return refuse(n, "coprocesses are not allowed in Plan Mode")
	case *syntax.WordIter:
		// A loop variable is an assignment: `for PATH in /tmp; do ls; done`
		// would make the next command resolve from another directory.
		if !strings.ContainsAny(n.Name.Value, "abcdefghijklmnopqrstuvwxyz") {
			return &CommandError{Command: "for " + n.Name.Value, Reason: fmt.Sprintf("the loop variable %q looks like an environment variable; use a lower-case name such as f", n.Name.Value)}
		}
	case *syntax.ParamExp:
		return checkParamExp(n)
	case *syntax.SglQuoted, *syntax.DblQuoted, *syntax.Lit, *syntax.Word,
		*syntax.CmdSubst, *syntax.ProcSubst, *syntax.ExtGlob, *syntax.BraceExp,
		*syntax.File, *syntax.Comment, *syntax.Subshell, *syntax.Block,
		*syntax.BinaryCmd, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause,
		*syntax.CaseClause, *syntax.CaseItem, *syntax.TimeClause, *syntax.Redirect:
		// Structure only; what they contain is visited separately.
	case *syntax.Assign:
		return refuse(n, "variable assignments are not allowed in Plan Mode")
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

func checkParamExp(p *syntax.ParamExp) error {
	switch {
	case p.Param != nil && !safeVariable(p.Param.Value):
		return refuse(p, "$"+p.Param.Value+" may hold a secret (environment variables carry API keys and tokens); "+
			"in Plan Mode only lower-case shell variables and non-secret ones such as $HOME, $PWD, $USER or $PATH are expanded")
	case p.Excl:
		return refuse(p, "indirect expansion ${!name} is not allowed in Plan Mode")
	case p.Index != nil || p.Slice != nil:
		return refuse(p, "array subscripts and substring offsets are arithmetic, which is not allowed in Plan Mode")
	case p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull):
		return refuse(p, "${name=value} assigns a variable, which is not allowed in Plan Mode")
	case p.Exp != nil && p.Exp.Op == syntax.OtherParamOps:
		if lit, ok := literal(p.Exp.Word); !ok || strings.ContainsAny(lit.value, "PA") {
			return refuse(p, "${name@P} and ${name@A} can evaluate code; not allowed in Plan Mode")
		}
	}
	return nil
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
		if static && (isDigits(target.value) || target.value == "-") {
			return nil
		}
		if r.Op == syntax.DplIn {
			return refuse(stmt, "input duplication must name a file descriptor number")
		}
	case syntax.RdrInOut:
		return refuse(stmt, "<> opens a file for writing (and creates it); use < to read")
	}
	if static && !target.glob && harmlessSink(target.value) {
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

// word is the statically known value of a shell word.
type word struct {
	value string
	glob  bool // unquoted glob or brace-expansion characters: may expand to other words
}

// literal returns the value a word has after quote removal, when that value
// is known without running anything. Words containing expansions,
// substitutions or $'...' escapes are not static.
func literal(w *syntax.Word) (word, bool) {
	if w == nil {
		return word{}, false
	}
	var out word
	var b, unquoted strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := unescapeUnquoted(p.Value)
			if strings.ContainsAny(p.Value, "*?[") {
				out.glob = true
			}
			unquoted.WriteString(p.Value)
			b.WriteString(v)
		case *syntax.SglQuoted:
			if p.Dollar {
				return word{}, false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return word{}, false
			}
			for _, dp := range p.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					return word{}, false
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return word{}, false
		}
	}
	// Brace expansion ({-del"ete",} becomes -delete) happens before quote
	// removal, so a word with an unquoted { and , or .. may expand to other
	// words, like a glob.
	if u := unquoted.String(); strings.Contains(u, "{") && (strings.Contains(u, ",") || strings.Contains(u, "..")) {
		out.glob = true
	}
	out.value = b.String()
	return out, true
}

// unescapeUnquoted applies the shell's quote removal to an unquoted literal:
// a backslash escapes the next character, and backslash-newline vanishes.
func unescapeUnquoted(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble applies quote removal inside double quotes, where a
// backslash only escapes $, `, ", \ and newline.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// refuse builds a CommandError quoting the node's source text.
func refuse(n syntax.Node, reason string) error {
	return &CommandError{Command: printNode(n), Reason: reason}
}

func printNode(n syntax.Node) string {
	var buf bytes.Buffer
	if err := syntax.NewPrinter(syntax.SingleLine(true)).Print(&buf, n); err != nil {
		return fmt.Sprintf("%T", n)
	}
	s := strings.TrimSpace(buf.String())
	const maxShown = 200
	if len(s) > maxShown {
		s = s[:maxShown] + "..."
	}
	return s
}
