package shellgate

import (
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// reader is a command that reads and prints and has no option that writes
// a file or runs another program, so for that any arguments are fine, even
// ones produced by a substitution or added by xargs. A few of its options
// are still refused when written out: those that read file names from a
// file or stdin (no path check can follow them) and those that never end.
type reader struct {
	short  string   // refused short options (letters)
	long   []string // refused long options (unique prefixes count)
	reason string
}

const (
	namesFromInput = "reads file names from a file or stdin, which cannot be checked against the workspace; name the files as arguments"
	neverEnds      = "never ends (the call would hang until its timeout); use tail -n"
)

// readers, refusedCommands and pathSpecs are built on first use (a Plan-Mode
// bash call), not at package init, which every harness9 start pays.
var readers = sync.OnceValue(func() map[string]reader {
	m := map[string]reader{
		"tail": {short: "fF", long: []string{"--follow", "--retry"}, reason: neverEnds},
		"wc":   {long: []string{"--files0-from"}, reason: namesFromInput},
		"du":   {long: []string{"--files0-from"}, reason: namesFromInput},
	}
	for _, n := range []string{"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum"} {
		m[n] = reader{short: "c", long: []string{"--check"}, reason: namesFromInput}
	}
	for _, n := range []string{
		"ls", "cat", "head", "grep", "egrep", "fgrep", "pwd", "stat", "df", "echo", "cut", "tr",
		"diff", "cmp", "which", "type", "basename", "dirname", "realpath", "readlink", "true",
		"false", ":", "cd", "nl", "tac", "rev", "paste", "comm", "join", "column", "fold", "od",
		"hexdump", "strings", "whoami", "id", "uname", "nproc", "expand", "unexpand", "seq",
	} {
		m[n] = reader{}
	}
	return m
})

// checkedCommands are read-only only with some arguments; each checker
// returns "" when the arguments are safe, else the reason they are not.
var checkedCommands map[string]func(args []arg) string

func init() {
	checkedCommands = map[string]func([]arg) string{
		"find": checkFind, "git": checkGit, "sed": checkSed, "sort": checkSort,
		"uniq": checkUniq, "tree": checkTree, "file": checkFile, "date": checkDate,
		"printf": checkPrintf, "env": checkEnv, "command": checkCommandBuiltin,
		"test": checkTest, "[": checkTest, "rg": checkRg, "xargs": checkXargs,
		"read": checkRead, "printenv": checkPrintenv, "ps": checkPs, "jq": checkJq,
		"awk": checkAwk, "gawk": checkAwk, "mawk": checkAwk, "nawk": checkAwk, "go": checkGo,
	}
}

// allowed reports whether name is on the allowlist at all.
func allowed(name string) bool {
	_, r := readers()[name]
	_, c := checkedCommands[name]
	return r || c
}

// refusedCommands get a specific explanation instead of the generic one.
var refusedCommands = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{"eval", "exec", "source", ".", "builtin", "trap", "alias", "enable"} {
		m[n] = n + " runs arbitrary code; run the read-only command itself instead"
	}
	for _, n := range []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox"} {
		m[n] = "a nested shell (" + n + " -c ...) can run anything; run the commands directly instead"
	}
	for _, n := range []string{"python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "tclsh", "Rscript", "osascript", "java"} {
		m[n] = n + " can run arbitrary code and write files; read the sources with read_file instead"
	}
	for _, n := range []string{"sudo", "su", "doas", "nohup", "timeout", "nice", "ionice", "stdbuf", "chroot", "setsid", "watch", "time", "strace", "script"} {
		m[n] = n + " runs another command; run that command directly"
	}
	m["tee"] = "tee writes its input to files; drop it and read the output directly"
	m["set"] = "set without arguments " + printsEnvironment + "; with arguments it changes shell options, which exploring does not need"
	return m
})

const allowedSummary = "ls, cat, head, tail, wc, grep, rg, find, tree, stat, file, du, df, pwd, echo, printf, " +
	"sort, uniq, cut, tr, diff, jq, sed (without -i/w/e), awk (without system/>/|), xargs and find -exec with a simple reader, " +
	"git status/log/diff/show/branch/rev-parse/ls-files/blame/grep, go list/doc/version/env"

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
	name, args, ok := callArgs(c)
	if !ok || (name.glob && name.value != "[") || name.tilde {
		return refuse(c, "the command name must be a literal word, not a variable, substitution or glob")
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
	if r, ok := readers()[name]; ok {
		return checkReader(name, r, args)
	}
	if check, ok := checkedCommands[name]; ok {
		return check(args)
	}
	if reason, ok := refusedCommands()[name]; ok {
		return reason
	}
	return fmt.Sprintf("%s is not on Plan Mode's read-only allowlist (%s)", name, allowedSummary)
}

// checkReader refuses the options of a reader that are refused when written
// out. Arguments that are not literal are not looked at: they cannot make a
// reader write or run anything.
func checkReader(name string, r reader, args []arg) string {
	for _, a := range args {
		if !a.static {
			continue
		}
		v := a.value
		if v == "--" {
			break
		}
		if longOpt(v, r.long...) || (isCluster(v) && r.short != "" && strings.ContainsAny(v[1:], r.short)) {
			return fmt.Sprintf("%s %s %s", name, v, r.reason)
		}
	}
	return ""
}

// checkInner vets the command xargs or find -exec would run: a reader by its
// bare name, since arguments it is given at run time could turn on any of
// the options of a richer command.
func checkInner(runner string, args []arg) string {
	if len(args) == 0 {
		return ""
	}
	if !args[0].literal() {
		return "the command " + runner + " runs must be a literal name"
	}
	name := args[0].value
	if r, ok := readers()[name]; ok && !strings.Contains(name, "/") {
		return checkReader(name, r, args[1:])
	}
	if allowed(name) {
		return fmt.Sprintf("%s may run only simple readers such as grep, cat, wc, head or ls, not %s: "+
			"the arguments it adds at run time could turn on options of %s that write or run programs", runner, name, name)
	}
	if reason := checkSimple(name, nil); reason != "" {
		return runner + " would run " + reason
	}
	return ""
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
