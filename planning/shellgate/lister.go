package shellgate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// File names made at run time — the output of $(...) used as operands, the
// input of xargs — cannot be checked against the workspace. With
// WithWorkspace they are accepted only from a file list: a pipeline that
// starts with a command printing names of files below paths already checked
// (find, git ls-files, grep -l, rg --files or -l) and goes on only through
// filters that pass some of those lines on unchanged (grep, sort, uniq,
// head, tail, none reading a file). A file list can still name a symlink
// leading out of the workspace; following it is the kernel sandbox's to
// refuse.

// listsFiles reports whether a word is exactly one $(...) (quoted or not)
// running a file list.
func listsFiles(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	part := w.Parts[0]
	if dq, ok := part.(*syntax.DblQuoted); ok && !dq.Dollar && len(dq.Parts) == 1 {
		part = dq.Parts[0]
	}
	cs, ok := part.(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 || cs.Stmts[0].Negated || cs.Stmts[0].Background {
		return false
	}
	return isFileList(pipeline(cs.Stmts[0]))
}

// fedXargs finds the xargs calls whose input is a file list: a later stage
// of a pipeline whose earlier stages are one, with no redirection of its
// own input.
func fedXargs(file *syntax.File) map[*syntax.CallExpr]bool {
	fed := map[*syntax.CallExpr]bool{}
	syntax.Walk(file, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		stages := pipeline(st)
		for k := 1; k < len(stages); k++ {
			c, ok := stages[k].Cmd.(*syntax.CallExpr)
			if !ok {
				continue
			}
			if name, _, _ := callArgs(c); name.value == "xargs" && !readsInput(stages[k]) && isFileList(stages[:k]) {
				fed[c] = true
			}
		}
		return true
	})
	return fed
}

// pipeline returns the stages of a | pipeline (a statement alone is a
// pipeline of one); nil when stderr is piped too (|&).
func pipeline(st *syntax.Stmt) []*syntax.Stmt {
	bin, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || (bin.Op != syntax.Pipe && bin.Op != syntax.PipeAll) {
		return []*syntax.Stmt{st}
	}
	if bin.Op == syntax.PipeAll || len(st.Redirs) > 0 {
		return nil
	}
	left, right := pipeline(bin.X), pipeline(bin.Y)
	if left == nil || right == nil {
		return nil
	}
	return append(left, right...)
}

// readsInput reports whether a statement redirects its stdin.
func readsInput(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.DplIn:
			return true
		}
	}
	return false
}

func isFileList(stages []*syntax.Stmt) bool {
	if len(stages) == 0 {
		return false
	}
	for k, st := range stages {
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(c.Assigns) > 0 || st.Negated || st.Background {
			return false
		}
		for _, r := range st.Redirs { // only 2>/dev/null: error messages are not file names
			if t, ok := literal(r.Word); !ok || r.Op != syntax.RdrOut || r.N == nil || r.N.Value != "2" || t.value != "/dev/null" {
				return false
			}
		}
		name, args, ok := callArgs(c)
		if !ok {
			return false
		}
		for _, a := range args {
			if !a.literal() {
				return false
			}
		}
		if k == 0 && !lister(name.value, args) || k > 0 && !lineFilter(name.value, args) {
			return false
		}
	}
	return true
}

// lister reports whether a command prints only names of files.
func lister(name string, args []arg) bool {
	switch name {
	case "find":
		for _, a := range args {
			switch a.value {
			case "-printf", "-fprintf", "-ls", "-fls", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-files0-from":
				return false
			}
		}
		return true
	case "git":
		i, reason := gitSubcommand(args)
		if reason != "" || i >= len(args) || args[i].value != "ls-files" {
			return false
		}
		flags := setOf("-z", "-c", "--cached", "-m", "--modified", "-o", "--others", "-d", "--deleted",
			"-i", "--ignored", "--exclude-standard", "--full-name", "--recurse-submodules", "--")
		for _, a := range args[i+1:] {
			if strings.HasPrefix(a.value, "-") && !flags[a.value] && !strings.HasPrefix(a.value, "--exclude=") {
				return false
			}
		}
		return true
	case "grep", "egrep", "fgrep", "rg":
		names := false
		for _, a := range args {
			v := a.value
			switch {
			case v == "--":
				return names
			case longOpt(v, "--label", "--json", "--vimgrep", "--count", "--only-matching", "--replace"):
				return false
			case v == "--files-with-matches" || v == "--files-without-match" || (name == "rg" && v == "--files"):
				names = true
			case isCluster(v) && strings.ContainsAny(v, "lL"):
				names = true
			}
		}
		return names
	}
	return false
}

// lineFilter reports whether a command reads only stdin and prints some of
// its lines unchanged.
func lineFilter(name string, args []arg) bool {
	var letters string
	operands := 0
	switch name {
	case "grep", "egrep", "fgrep":
		letters = "viEFGwxz"
		patternGiven := false
		for i := 0; i < len(args); i++ {
			v := args[i].value
			switch {
			case v == "-e" || v == "--regexp":
				i++
				patternGiven = true
			case strings.HasPrefix(v, "--regexp="), strings.HasPrefix(v, "-e") && len(v) > 2:
				patternGiven = true
			case v == "--":
				operands += len(args) - i - 1
				i = len(args)
			case isCluster(v):
				if strings.Trim(v[1:], letters) != "" {
					return false
				}
			case strings.HasPrefix(v, "--") && !longOpt(v, "--invert-match", "--ignore-case", "--extended-regexp",
				"--fixed-strings", "--word-regexp", "--line-regexp", "--null-data"):
				return false
			default:
				operands++
			}
		}
		// One pattern and no file: grep filters its input.
		return patternGiven && operands == 0 || !patternGiven && operands == 1
	case "sort":
		letters = "rufnVzd"
	case "uniq":
		letters = "cduiz"
	case "head", "tail":
		for i := 0; i < len(args); i++ {
			v := args[i].value
			switch {
			case v == "-n":
				i++
			case strings.HasPrefix(v, "-n") || (len(v) > 1 && v[0] == '-' && isDigits(v[1:])) || v == "-z":
			default:
				return false
			}
		}
		return true
	default:
		return false
	}
	for _, a := range args {
		if !isCluster(a.value) || strings.Trim(a.value[1:], letters) != "" {
			return false
		}
	}
	return true
}
