package shellgate

import (
	"fmt"
	"strings"
)

// checkFind allows find as a lister: no -delete or -fprint*, no file names
// read from a file, and -exec/-execdir only with a simple reader.
func checkFind(args []arg) string {
	for _, a := range args {
		if !a.literal() {
			return "find arguments must be literal in Plan Mode (a substitution or unquoted glob could expand to -delete or -exec); quote patterns like -name '*.go'"
		}
	}
	for i := 0; i < len(args); i++ {
		switch v := args[i].value; v {
		case "-exec", "-execdir":
			end := execEnd(args, i+1)
			if end < 0 {
				return "find " + v + " needs a terminating \\; or {} +"
			}
			if r := checkInner("find "+v, args[i+1:end]); r != "" {
				return r
			}
			i = end
		case "-ok", "-okdir":
			return "find " + v + " asks for confirmation on a terminal, which Plan Mode has none of; use -exec with a simple reader"
		case "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return "find " + v + " writes or deletes files; list the matches with -print and read them with read_file"
		case "-files0-from":
			return "find -files0-from " + namesFromInput
		}
	}
	return ""
}

// execEnd finds the argument ending an -exec command that starts at start:
// ";" or a "+" right after "{}", as GNU find reads it; -1 when there is none.
func execEnd(args []arg, start int) int {
	for j := start; j < len(args); j++ {
		switch args[j].value {
		case ";":
			return j
		case "+":
			if j > start && args[j-1].value == "{}" {
				return j
			}
		}
	}
	return -1
}

// checkXargs allows xargs in front of a simple reader: xargs appends its
// input as arguments, so stdin could add -delete to find or -i to sed.
func checkXargs(args []arg) string {
	const terminal = "xargs -p and -o use the terminal, which Plan Mode has none of"
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i]
		if !a.literal() {
			return "xargs arguments must be literal in Plan Mode"
		}
		v := a.value
		switch {
		case v == "--":
			i++
			break options
		case !strings.HasPrefix(v, "-") || v == "-":
			break options // the command: xargs stops at the first operand
		case strings.HasPrefix(v, "--"):
			name, _, hasVal := strings.Cut(v, "=")
			switch {
			case longOpt(name, "--process-slot-var"):
				return "xargs --process-slot-var sets an environment variable of the command it runs"
			case longOpt(name, "--interactive", "--open-tty"):
				return terminal
			case longOpt(name, "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars"):
				if !hasVal {
					i++
				}
			case longOpt(name, "--null", "--no-run-if-empty", "--verbose", "--exit", "--show-limits",
				"--eof", "--replace", "--max-lines", "--help", "--version"):
			default:
				return fmt.Sprintf("the xargs option %s is not allowed in Plan Mode", v)
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			switch c := v[j]; {
			case strings.IndexByte("0rtx", c) >= 0:
			case strings.IndexByte("adEILnPs", c) >= 0: // a value, attached or the next word
				if j == len(v)-1 {
					i++
				}
				j = len(v)
			case strings.IndexByte("eil", c) >= 0: // an optional value, attached only
				j = len(v)
			case c == 'p' || c == 'o':
				return terminal
			default:
				return fmt.Sprintf("the xargs option -%c is not allowed in Plan Mode", c)
			}
		}
	}
	if i >= len(args) {
		return "" // xargs alone runs echo
	}
	return checkInner("xargs", args[i:])
}
