package shellgate

import (
	"fmt"
	"strings"
)

// checkAwk allows awk programs that only read and print: no -f program
// files, only the -F and -v options, and a program checkAwkProgram accepts.
func checkAwk(args []arg) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.literal() {
			return "awk options and program must be literal in Plan Mode"
		}
		v := a.value
		switch {
		case v == "--":
			if i+1 < len(args) {
				return checkAwkProgram(args[i+1])
			}
			return ""
		case v == "-F" || v == "-v":
			i++
		case strings.HasPrefix(v, "-F") || strings.HasPrefix(v, "-v") ||
			strings.HasPrefix(v, "--field-separator=") || strings.HasPrefix(v, "--assign="):
		case strings.HasPrefix(v, "-") && v != "-":
			return fmt.Sprintf("the awk option %s is not allowed in Plan Mode (only -F and -v are)", v)
		default:
			return checkAwkProgram(a)
		}
	}
	return ""
}

// checkAwkProgram allows programs that only read and print. Without a
// parser of awk it uses two facts of its grammar: output redirection
// (print > "f") can only happen in an action, which needs a {, so a
// program with no { may compare with >; and a pipe is a lone |, never ||.
func checkAwkProgram(a arg) string {
	if !a.literal() {
		return "the awk program must be literal in Plan Mode"
	}
	p := a.value
	for _, bad := range []string{"system", "getline", "ENVIRON", "PROCINFO", "ARGV", "ARGC", "SYMTAB", "FUNCTAB"} {
		if strings.Contains(p, bad) {
			return fmt.Sprintf("awk programs may not use %s in Plan Mode (system and getline run commands or open files the gate cannot check, "+
				"ARGV adds files, ENVIRON and PROCINFO hold secrets); pass the files to read as arguments", bad)
		}
	}
	switch {
	case strings.Contains(p, "@"):
		return "awk programs may not contain @ in Plan Mode (gawk's @include, @load and indirect calls such as @f() load or run code)"
	case strings.Contains(p, "\\\n"):
		return "awk programs may not continue a line with a backslash in Plan Mode; write it on one line"
	case strings.Contains(strings.ReplaceAll(p, "||", ""), "|"):
		return "awk programs may not contain | in Plan Mode (print | \"cmd\" and \"cmd\" | getline run commands); || is fine"
	case strings.Contains(p, ">") && strings.Contains(p, "{"):
		return "awk programs with an action ({...}) may not contain > in Plan Mode (print > \"file\" writes a file); " +
			"compare the other way round (1 < $3 instead of $3 > 1), or put the comparison in a pattern without braces: awk '$3 > 1' file"
	}
	return ""
}
