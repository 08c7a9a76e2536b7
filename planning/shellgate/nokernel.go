package shellgate

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What the gate refuses when no kernel sandbox backs it
// (WithoutKernelSandbox): whatever the gate otherwise leaves to the kernel.

const (
	runtimeNames = "without the kernel sandbox (plan_bash = \"gated\"), file names only known at run time " +
		"(xargs, $(find ...) as operands, find -exec) are refused: one could be a symbolic link leading out of the " +
		"workspace, and nothing would stop reading it. Name the files, or search with grep -r, rg or search_files"
	psUnconfined = "without the kernel sandbox (plan_bash = \"gated\"), ps would list every process on the machine " +
		"with its command line, which can hold secrets; nothing here hides other processes"
)

// checkUnconfined refuses ps and file names made at run time.
func checkUnconfined(file *syntax.File) error {
	var err error
	syntax.Walk(file, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				if r.Word != nil && listsFiles(r.Word) {
					err = refuse(n, runtimeNames)
				}
			}
		case *syntax.CallExpr:
			name, args, _ := callArgs(n)
			switch name.value {
			case "ps":
				err = refuse(n, psUnconfined)
			case "xargs":
				err = refuse(n, runtimeNames)
			case "find":
				if slices.ContainsFunc(args, func(a arg) bool { return a.value == "-exec" || a.value == "-execdir" }) {
					err = refuse(n, runtimeNames)
				}
			}
			for _, a := range args {
				if err == nil && listsFiles(a.w) {
					err = refuse(n, runtimeNames)
				}
			}
		}
		return err == nil
	})
	return err
}

// recursion refuses a recursive read of a directory that holds a denied
// location: without the kernel sandbox nothing would stop grep -r . in a
// home directory from reading ~/.ssh. ops are the operands the command
// reads (none: it starts where it runs).
func (s *pathChecker) recursion(c *syntax.CallExpr, name string, args []arg, ops []arg) error {
	if !recursive(name, args) {
		return nil
	}
	var dirs []string
	if len(ops) == 0 {
		dirs = slices.Clone(s.bases)
	}
	for _, op := range ops {
		if !op.static {
			continue // checked where it came from
		}
		for _, b := range s.bases {
			candidates := []string{join(b, op.value)}
			if op.glob {
				start := b
				if strings.HasPrefix(op.value, "/") {
					start = ""
				}
				pattern, _ := wordPattern(op.w)
				candidates, _ = expandGlob(start, globComponents(pattern))
			}
			for _, p := range candidates {
				if r, err := s.ws.Resolve(p); err == nil && s.isDir(r) {
					dirs = append(dirs, r)
				}
			}
		}
	}
	for _, d := range dirs {
		for _, denied := range s.ws.DenyList() {
			if denied == d || strings.HasPrefix(denied, d+string(filepath.Separator)) || d == string(filepath.Separator) {
				return &CommandError{Command: printNode(c), Path: s.ws.Rel(d),
					Reason: fmt.Sprintf("without the kernel sandbox (plan_bash = \"gated\"), %s would read everything below %q, "+
						"including %s, which holds credentials; name a directory that does not contain it, or use "+
						"search_files, which skips it", name, s.ws.Rel(d), s.ws.Rel(denied))}
			}
		}
	}
	return nil
}

// recursive reports whether a command with these arguments reads a
// directory tree.
func recursive(name string, args []arg) bool {
	switch name {
	case "rg", "find", "du", "tree", "git grep", "git ls-files":
		return true
	case "grep", "egrep", "fgrep":
		for i, a := range args {
			v := a.value
			if v == "--" {
				break
			}
			if hasFlag(v, "rR", "--recursive", "--dereference-recursive") ||
				longOpt(v, "--directories") && strings.HasSuffix(v, "=recurse") || v == "-drecurse" ||
				v == "-d" && i+1 < len(args) && args[i+1].value == "recurse" {
				return true
			}
		}
	case "ls":
		return slices.ContainsFunc(args, func(a arg) bool { return hasFlag(a.value, "R", "--recursive") })
	case "diff":
		return slices.ContainsFunc(args, func(a arg) bool { return hasFlag(a.value, "r", "--recursive") })
	}
	return false
}

// hasFlag reports whether an argument is one of the long options or a
// cluster holding one of the short letters (over-recognised on purpose: a
// letter of an attached value counts too).
func hasFlag(v, short string, long ...string) bool {
	return longOpt(v, long...) || isCluster(v) && strings.ContainsAny(v[1:], short)
}
