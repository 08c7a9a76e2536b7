package planning

import (
	"fmt"
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

func checkEnv(args []arg) string {
	if len(args) == 0 {
		return ""
	}
	return "env with arguments runs a command or changes its environment; use env alone to print the environment, or run the command directly"
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
