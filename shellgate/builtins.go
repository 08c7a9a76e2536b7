package planning

import (
	"fmt"
	"regexp"
	"strings"
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

func isLowerIdent(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
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
		if !a.literal() || !safeVariable(a.value) || !isIdent(a.value) {
			return fmt.Sprintf("printenv %s may print a secret (environment variables carry API keys and tokens); "+
				"only non-secret variables such as HOME, PWD, USER or PATH can be printed in Plan Mode", a.value)
		}
	}
	return ""
}

// checkPs refuses the BSD-style e modifier (ps e, ps auxe), which prints the
// environment of every process, secrets included.
func checkPs(args []arg) string {
	for _, a := range args {
		if !a.literal() {
			return "ps arguments must be literal in Plan Mode"
		}
		if !strings.HasPrefix(a.value, "-") && strings.Contains(a.value, "e") {
			return "ps e " + printsEnvironment + " of each process; use ps without the e modifier (ps aux, ps -ef)"
		}
	}
	return ""
}

// safeEnv are the environment variables Plan Mode may expand or print:
// they describe the machine and the user and are never credentials.
var safeEnv = setOf("HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "PATH", "LANG", "LANGUAGE",
	"LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TERM", "TMPDIR", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE",
	"UID", "EUID", "PPID", "BASHPID", "BASH_VERSION", "SHLVL", "RANDOM", "SECONDS", "LINENO", "IFS",
	"COLUMNS", "LINES", "EDITOR", "VISUAL", "PAGER", "GOPATH", "GOROOT", "GOOS", "GOARCH",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR")

// safeVariable reports whether Plan Mode may expand the shell parameter
// name: special parameters ($1, $?, $@ ...), lower-case names (shell
// variables, such as the loop and read variables the gate allows) and the
// non-secret environment variables of safeEnv. Upper-case names are how
// environment variables, API keys among them, are spelled.
func safeVariable(name string) bool {
	if name == "" || isDigits(name) || (len(name) == 1 && strings.Contains("@*#?-$!_", name)) {
		return true
	}
	return safeEnv[name] || !strings.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
}

// jqUnsafe matches jq filters that read the environment ($ENV, env) or load
// modules from files (include, import).
var jqUnsafe = regexp.MustCompile(`\$ENV\b|(^|[^.\w$"])env\b|\b(include|import)\b`)

func checkJq(args []arg) string {
	for _, a := range args {
		switch {
		case !a.literal():
			return "jq arguments must be literal in Plan Mode"
		case a.value == "-f" || longOpt(a.value, "--from-file"):
			return "jq -f reads a filter the gate cannot check; pass the filter inline"
		case jqUnsafe.MatchString(a.value):
			return "jq filters may not use $ENV or env (environment variables hold secrets) or include/import modules in Plan Mode"
		}
	}
	return ""
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func checkCommand(args []arg) string {
	if len(args) >= 2 && args[0].literal() && (args[0].value == "-v" || args[0].value == "-V") {
		return ""
	}
	return "command CMD runs CMD; only command -v NAME (to locate a command) is allowed in Plan Mode"
}

func checkTest(args []arg) string {
	for _, a := range args {
		if !a.literal() {
			return "test/[ arguments must be literal in Plan Mode (test -v evaluates array subscripts that can run commands); check files with literal paths or use ls"
		}
		if a.value == "-v" {
			return "test -v is not allowed in Plan Mode (it evaluates array subscripts that can run commands)"
		}
	}
	return ""
}
