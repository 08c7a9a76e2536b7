package shellgate

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Checkers for the shell builtins and small utilities that are read-only
// only with some arguments.

func checkDate(args []arg) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.literal() {
			return "date arguments must be literal in Plan Mode (date can set the system clock)"
		}
		v := a.value
		switch {
		case longOpt(v, "--set"):
			return "date --set changes the system clock"
		case v == "--date" || v == "--file" || v == "--reference":
			i++
		case strings.HasPrefix(v, "--"):
			continue
		case strings.HasPrefix(v, "+"):
			continue
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 's' {
					return "date -s changes the system clock"
				}
				if strings.IndexByte("dfrI", c) >= 0 {
					if j == len(v)-1 && c != 'I' {
						i++
					}
					break
				}
				if c != 'R' && c != 'u' {
					return fmt.Sprintf("date option -%c is not allowed in Plan Mode", c)
				}
			}
		default:
			return "date with an operand that is not +FORMAT sets the system clock; use date or date +FORMAT"
		}
	}
	return ""
}

// checkRead allows `read -r line` in loops: the names read assigns must be
// plain lower-case identifiers (not PATH or IFS, and not a[$(cmd)] whose
// subscript bash would evaluate).
func checkRead(args []arg) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.literal() {
			return "read arguments must be literal in Plan Mode"
		}
		v := a.value
		switch {
		case v == "-r" || v == "-s" || v == "-e" || v == "-rs" || v == "-sr":
		case v == "-d" || v == "-n" || v == "-N" || v == "-t" || v == "-p":
			i++
		case strings.HasPrefix(v, "-"):
			return fmt.Sprintf("read option %s is not allowed in Plan Mode (use read -r name)", v)
		case !isLowerIdent(v):
			return fmt.Sprintf("read may only assign plain lower-case variable names in Plan Mode, not %q", v)
		}
	}
	return ""
}

// readNames returns the variables a read command assigns, as checkRead
// parses it.
func readNames(args []arg) []string {
	var names []string
	for i := 0; i < len(args); i++ {
		v := args[i].value
		switch {
		case v == "-d" || v == "-n" || v == "-N" || v == "-t" || v == "-p":
			i++
		case !strings.HasPrefix(v, "-") && args[i].literal():
			names = append(names, v)
		}
	}
	return names
}

func checkPrintf(args []arg) string {
	if len(args) == 0 {
		return ""
	}
	first := args[0]
	if first.static && first.value == "--" && len(args) > 1 {
		first = args[1]
	}
	if !first.literal() {
		return "the printf format must be literal in Plan Mode"
	}
	if strings.HasPrefix(first.value, "-v") {
		return "printf -v assigns a shell variable; print to stdout instead"
	}
	return ""
}

// printsEnvironment ends the refusal of env, printenv, set and export.
const printsEnvironment = "would print environment variables, which can hold secrets (API keys, tokens); " +
	"not allowed in Plan Mode. Read the project's configuration files instead, or echo a specific non-secret variable such as $HOME"

func checkEnv(args []arg) string {
	if len(args) == 0 {
		return "env " + printsEnvironment
	}
	return "env with arguments runs a command or changes its environment; run the command directly"
}

func checkPrintenv(args []arg) string {
	if len(args) == 0 {
		return "printenv " + printsEnvironment
	}
	for _, a := range args {
		if !a.literal() || !safeEnv[a.value] {
			return fmt.Sprintf("printenv %s may print a secret (environment variables carry API keys and tokens); "+
				"only non-secret variables such as HOME, PWD, USER or PATH can be printed in Plan Mode", a.value)
		}
	}
	return ""
}

// checkPs refuses the BSD-style e modifier (ps e, ps auxe) and the environ
// format (ps -o environ), which print the environment of every process,
// secrets included.
func checkPs(args []arg) string {
	for _, a := range args {
		if !a.literal() {
			return "ps arguments must be literal in Plan Mode"
		}
		if !strings.HasPrefix(a.value, "-") && strings.Contains(a.value, "e") || strings.Contains(strings.ToLower(a.value), "env") {
			return "ps e and ps -o environ print the environment of every process, which can hold secrets (API keys, tokens); use ps without them (ps aux, ps -ef)"
		}
	}
	return ""
}

// jqUnsafe matches jq programs that may read the environment ($ENV, env;
// jq allows blanks and comments between $ and the name, so any ENV word
// counts) or load code or data from files (include, import, modulemeta,
// get_search_list, input_filename aside). A field named env (.env, ."env")
// is fine.
// Compiled on first use: every process start would pay for it at init.
var jqUnsafe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bENV\b|(^|[^.\w"])env\b|\b(include|import|modulemeta|get_search_list|\$__prog_args)\b`)
})

func checkJq(args []arg) string {
	for _, a := range args {
		switch {
		case !a.literal():
			return "jq arguments must be literal in Plan Mode"
		case a.value == "-f" || longOpt(a.value, "--from-file") || (isCluster(a.value) && !strings.HasPrefix(a.value, "--") && strings.Contains(a.value, "f")):
			return "jq -f reads a program the gate cannot check; pass the program inline"
		case jqUnsafe().MatchString(a.value):
			return "jq programs may not use $ENV or env (environment variables hold secrets) or include/import modules in Plan Mode"
		}
	}
	return ""
}

func checkCommandBuiltin(args []arg) string {
	if len(args) >= 2 && args[0].literal() && (args[0].value == "-v" || args[0].value == "-V") {
		return ""
	}
	return "command CMD runs CMD; only command -v NAME (to locate a command) is allowed in Plan Mode"
}

// checkTest allows test and [ with literal arguments, and with a value from
// a loop variable where the shape of the test is fixed by literal operators:
// [ -f "$f" ], [ "$a" = x ]. A test whose operator could come from a value
// is refused: test -v evaluates array subscripts, which can run commands.
func checkTest(args []arg) string {
	const unsafe = "test -v is not allowed in Plan Mode (it evaluates array subscripts that can run commands)"
	if n := len(args); n > 0 && args[n-1].static && args[n-1].value == "]" {
		args = args[:n-1]
	}
	dynamic := false
	for _, a := range args {
		if a.static && a.value == "-v" {
			return unsafe
		}
		if !a.literal() {
			dynamic = true
		}
	}
	if !dynamic {
		return ""
	}
	if len(args) > 0 && args[0].literal() && args[0].value == "!" {
		args = args[1:]
	}
	operand := func(a arg) bool { return a.literal() || quotedParam(a.w) }
	switch {
	case len(args) == 2 && args[0].literal() && unaryTest[args[0].value] && operand(args[1]):
		return ""
	case len(args) == 3 && args[1].literal() && binaryTest[args[1].value] && operand(args[0]) && operand(args[2]):
		return ""
	}
	return "test/[ with values from variables is allowed only as [ -OP \"$var\" ] or [ \"$var\" OP value ] in Plan Mode; " +
		"write other tests with literal arguments"
}

var (
	unaryTest  = setOf("-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-G", "-L", "-N", "-O", "-S", "-n", "-z")
	binaryTest = setOf("=", "==", "!=", "<", ">", "-nt", "-ot", "-ef", "-eq", "-ne", "-lt", "-le", "-gt", "-ge")
)

// quotedParam recognises "$name" and "${name}": one argument, whatever the
// value.
func quotedParam(w *syntax.Word) bool {
	if w == nil || len(w.Parts) != 1 {
		return false
	}
	dq, ok := w.Parts[0].(*syntax.DblQuoted)
	if !ok || dq.Dollar || len(dq.Parts) != 1 {
		return false
	}
	p, ok := dq.Parts[0].(*syntax.ParamExp)
	return ok && p.Param != nil && p.Exp == nil && p.Repl == nil && p.Index == nil && p.Slice == nil && !p.Excl && !p.Length
}
