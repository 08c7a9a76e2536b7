package planning

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// simpleCommands read and print and have no option that writes a file or
// runs another program, so any arguments are fine — even ones produced by a
// substitution or fed by xargs.
var simpleCommands = setOf(
	"ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "pwd", "stat",
	"du", "df", "echo", "cut", "tr", "diff", "cmp", "which", "type", "basename",
	"dirname", "realpath", "readlink", "true", "false", ":", "cd", "nl", "tac",
	"rev", "paste", "comm", "join", "column", "fold", "od", "hexdump", "strings",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "whoami", "id",
	"uname", "nproc", "expand", "unexpand", "seq",
)

// checkedCommands are read-only only with some arguments; each checker
// returns "" when the arguments are safe, else the reason they are not.
var checkedCommands map[string]func(args []arg) string

func init() {
	checkedCommands = map[string]func([]arg) string{
		"find": checkFind, "git": checkGit, "sed": checkSed, "sort": checkSort,
		"uniq": checkUniq, "tree": checkTree, "file": checkFile, "date": checkDate,
		"printf": checkPrintf, "env": checkEnv, "command": checkCommand,
		"test": checkTest, "[": checkTest, "rg": checkRg, "xargs": checkXargs,
		"read": checkRead, "printenv": checkPrintenv, "ps": checkPs, "jq": checkJq, "awk": checkAwk, "gawk": checkAwk, "mawk": checkAwk, "nawk": checkAwk,
	}
}

// refusedCommands get a specific explanation instead of the generic one.
var refusedCommands = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{"eval", "exec", "source", ".", "builtin", "trap", "alias", "enable"} {
		m[n] = n + " runs arbitrary code; run the read-only command itself instead"
	}
	for _, n := range []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox"} {
		m[n] = "a nested shell (" + n + " -c ...) can run anything; run the commands directly instead"
	}
	for _, n := range []string{"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "tclsh", "Rscript", "osascript", "go", "java"} {
		m[n] = n + " can run arbitrary code and write files; read the sources with read_file instead"
	}
	for _, n := range []string{"sudo", "su", "doas", "nohup", "timeout", "nice", "ionice", "stdbuf", "chroot", "setsid", "watch", "time", "strace", "script"} {
		m[n] = n + " runs another command; run that command directly"
	}
	m["tee"] = "tee writes its input to files; drop it and read the output directly"
	m["set"] = "set without arguments " + printsEnvironment + "; with arguments it changes shell options, which exploring does not need"
	return m
}()

const allowedSummary = "ls, cat, head, tail, wc, grep, rg, find (without -exec/-delete), tree, stat, file, du, df, pwd, " +
	"echo, printf, sort, uniq, cut, tr, diff, sed (without -i/w/e), awk (without system/>/|), xargs with a simple reader, " +
	"git status/log/diff/show/branch/rev-parse/ls-files/blame/grep"

// arg is one argument of a simple command as far as it is known statically.
type arg struct {
	value  string
	static bool // value is exactly what the command receives
	glob   bool // unquoted glob characters: may expand to other (option-like) words
}

func (a arg) literal() bool { return a.static && !a.glob }

func checkCall(c *syntax.CallExpr) error {
	if len(c.Assigns) > 0 {
		if len(c.Args) == 0 {
			return refuse(c, "variable assignments are not allowed in Plan Mode; write the value where it is used")
		}
		return refuse(c, "a variable assignment before a command (VAR=x cmd) changes how the command runs; run the command without it")
	}
	if len(c.Args) == 0 {
		return nil
	}
	name, ok := literal(c.Args[0])
	if !ok || (name.glob && name.value != "[") {
		return refuse(c, "the command name must be a literal word, not a variable, substitution or glob")
	}
	args := make([]arg, 0, len(c.Args)-1)
	for _, w := range c.Args[1:] {
		lit, ok := literal(w)
		args = append(args, arg{value: lit.value, static: ok, glob: lit.glob})
	}
	if reason := checkSimple(name.value, args); reason != "" {
		return refuse(c, reason)
	}
	return nil
}

// checkSimple vets a command name and its arguments and returns why they are
// refused, or "".
func checkSimple(name string, args []arg) string {
	if strings.Contains(name, "/") {
		return "run commands by their bare name (ls, not /bin/ls or ./ls); a path can point at any program"
	}
	if simpleCommands[name] {
		return ""
	}
	if check, ok := checkedCommands[name]; ok {
		return check(args)
	}
	if reason, ok := refusedCommands[name]; ok {
		return reason
	}
	return fmt.Sprintf("%s is not on Plan Mode's read-only allowlist (%s)", name, allowedSummary)
}

// literalOptions requires every argument before a "--" to be literal: a
// substitution or an unquoted glob could expand to a writing option.
func literalOptions(cmd string, args []arg) string {
	for _, a := range args {
		if a.static && a.value == "--" {
			return ""
		}
		if !a.literal() {
			return fmt.Sprintf("%s arguments must be literal in Plan Mode (a substitution or unquoted glob could expand to an option that writes); quote patterns like '*.go' or put file operands after --", cmd)
		}
	}
	return ""
}

// longOpt reports whether a names one of the long options, allowing the
// unique-prefix abbreviations GNU getopt accepts (--out=f is --output=f).
func longOpt(a string, names ...string) bool {
	name, _, _ := strings.Cut(a, "=")
	if len(name) < 3 || !strings.HasPrefix(name, "--") {
		return false
	}
	for _, n := range names {
		if strings.HasPrefix(n, name) {
			return true
		}
	}
	return false
}

func checkFind(args []arg) string {
	for _, a := range args {
		if !a.literal() {
			return "find arguments must be literal in Plan Mode (a substitution or unquoted glob could expand to -delete or -exec); quote patterns like -name '*.go'"
		}
		switch a.value {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return "find " + a.value + " runs commands or writes/deletes files; list the matches with -print and read them with read_file"
		}
	}
	return ""
}

func checkRg(args []arg) string {
	if r := literalOptions("rg", args); r != "" {
		return r
	}
	for _, a := range args {
		if a.value == "--" {
			break
		}
		if a.value == "--pre" || strings.HasPrefix(a.value, "--pre=") {
			return "rg --pre runs a preprocessor command on every file; search without it"
		}
		if a.value == "--hostname-bin" || strings.HasPrefix(a.value, "--hostname-bin=") {
			return "rg --hostname-bin runs a program; search without it"
		}
	}
	return ""
}

func checkSort(args []arg) string {
	if r := literalOptions("sort", args); r != "" {
		return r
	}
	for i := 0; i < len(args); i++ {
		a := args[i].value
		switch {
		case a == "--":
			return ""
		case longOpt(a, "--output", "--compress-program"):
			return "sort --output/--compress-program writes a file or runs a program; let sort print to stdout"
		case strings.HasPrefix(a, "--") || a == "-" || !strings.HasPrefix(a, "-"):
			continue
		}
		for j := 1; j < len(a); j++ {
			switch c := a[j]; {
			case c == 'o':
				return "sort -o writes its output to a file; let sort print to stdout"
			case strings.IndexByte("ktST", c) >= 0:
				if j == len(a)-1 {
					i++ // the option's value is the next argument
				}
				j = len(a)
			case strings.IndexByte("bdfgiMhnRrVcCsuz", c) < 0:
				return fmt.Sprintf("sort option -%c is not allowed in Plan Mode", c)
			}
		}
	}
	return ""
}

func checkUniq(args []arg) string {
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.literal() {
			return "uniq arguments must be literal in Plan Mode (a second operand is an output file uniq would overwrite)"
		}
		v := a.value
		switch {
		case v == "-" || !strings.HasPrefix(v, "-"):
			operands++
		case v == "-f" || v == "-s" || v == "-w" || v == "--skip-fields" || v == "--skip-chars" || v == "--check-chars":
			i++
		}
	}
	if operands > 1 {
		return "uniq INPUT OUTPUT writes OUTPUT; give uniq at most one file and read its stdout"
	}
	return ""
}

func checkTree(args []arg) string {
	if r := literalOptions("tree", args); r != "" {
		return r
	}
	for _, a := range args {
		v := a.value
		if v == "--" {
			break
		}
		if longOpt(v, "--output") || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "oR")) {
			return "tree -o writes a file and tree -R writes 00Tree.html files; use tree without them"
		}
	}
	return ""
}

func checkFile(args []arg) string {
	if r := literalOptions("file", args); r != "" {
		return r
	}
	for _, a := range args {
		v := a.value
		if v == "--" {
			break
		}
		if longOpt(v, "--compile") || (strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "C")) {
			return "file -C compiles a magic file and writes it to disk; use file without -C"
		}
	}
	return ""
}

// checkXargs allows xargs only in front of a simple reader: xargs appends
// its input as arguments, so stdin could add -delete to find or -i to sed.
func checkXargs(args []arg) string {
	withValue := setOf("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s",
		"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var")
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.literal() {
			return "xargs arguments must be literal in Plan Mode"
		}
		v := a.value
		if v == "--" {
			i++
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			break
		}
		if withValue[v] {
			i++
		}
	}
	if i >= len(args) {
		return "" // xargs alone runs echo
	}
	if !args[i].literal() {
		return "the command xargs runs must be a literal name"
	}
	name := args[i].value
	if simpleCommands[name] && !strings.Contains(name, "/") {
		return ""
	}
	if _, ok := checkedCommands[name]; ok {
		return fmt.Sprintf("xargs %s is not allowed: xargs adds its input as extra arguments, which could turn on options of %s that write; use xargs only with simple readers such as grep, cat, wc, ls or head", name, name)
	}
	if reason := checkSimple(name, nil); reason != "" {
		return "xargs would run " + reason
	}
	return ""
}

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
