package shellgate

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The path checks of the commands whose arguments argSpec cannot describe:
// xargs and find (which run other commands), git and go (whose global
// options move the directory the rest is read from).

// call checks the path arguments of one simple command.
func (s *pathChecker) call(c *syntax.CallExpr) error {
	name, args, _ := callArgs(c)
	switch name.value {
	case "", "cd": // cd was checked by collect
		return nil
	case "xargs":
		return s.xargs(c, args)
	case "find":
		return s.find(c, args)
	case "git":
		return s.git(c, args)
	case "go":
		return s.goCmd(c, args)
	}
	return s.inner(c, name.value, args)
}

// inner checks a command's arguments by its spec.
func (s *pathChecker) inner(c *syntax.CallExpr, name string, args []arg) error {
	sp, ok := pathSpecs()[name]
	if !ok {
		sp = &argSpec{}
	}
	if sp.noPaths {
		// Not read as files, but bash still expands their globs.
		for _, a := range args {
			if err := s.expansion(c, a.w); err != nil {
				return err
			}
		}
		return nil
	}
	ops, err := s.generic(c, sp, args)
	if err != nil || !s.unconfined {
		return err
	}
	return s.recursion(c, name, args, ops)
}

// xargs runs its command on names from its input, which must be a file
// list (lister.go); an argument that only holds the -I replacement string
// is such a name, the others are checked.
func (s *pathChecker) xargs(c *syntax.CallExpr, args []arg) error {
	refuse := func(reason string) error {
		return &CommandError{Command: printNode(c), Path: "xargs", Reason: reason}
	}
	if !s.fed[c] {
		return refuse("xargs passes its input to the command as arguments, usually file names, which cannot be checked against the workspace " +
			"unless they come straight from find, git ls-files, grep -l or rg --files (through grep, sort, uniq, head or tail at most); " +
			"pipe one of those into xargs, name the files directly, or search with grep -r, rg or search_files")
	}
	cmd, replace, fromFile := xargsCommand(args)
	if fromFile {
		return refuse("xargs -a reads its arguments from a file, which cannot be checked against the workspace; pipe a file list into xargs instead")
	}
	if cmd >= len(args) {
		return nil
	}
	inner := slices.Clone(args[cmd+1:])
	for k, a := range inner {
		if replace != "" && a.static && strings.Contains(a.value, replace) {
			if a.value != replace {
				return refuse(fmt.Sprintf("with xargs -I, the replacement %s must be a whole argument, so that it stays a name from the file list", replace))
			}
			inner[k].runtime = true
		}
	}
	return s.inner(c, args[cmd].value, inner)
}

// xargsCommand finds the command in xargs's arguments (len(args) when
// there is none), its -I replacement string, and whether -a is given.
func xargsCommand(args []arg) (cmd int, replace string, fromFile bool) {
	for i := 0; i < len(args); i++ {
		v := args[i].value
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i].value
			}
			return ""
		}
		switch {
		case v == "--":
			return i + 1, replace, fromFile
		case !strings.HasPrefix(v, "-") || v == "-":
			return i, replace, fromFile
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v, "=")
			switch {
			case longOpt(name, "--arg-file"):
				fromFile = true
			case longOpt(name, "--replace"):
				replace = "{}"
				if hasVal {
					replace = val
				}
			}
			if !hasVal && longOpt(name, "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars") {
				next()
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if strings.IndexByte("adEILnPs", c) >= 0 {
				val := v[j+1:]
				if val == "" {
					val = next()
				}
				switch c {
				case 'a':
					fromFile = true
				case 'I':
					replace = val
				}
				break
			}
			if c == 'i' || c == 'e' || c == 'l' {
				if c == 'i' {
					replace = "{}"
					if j+1 < len(v) {
						replace = v[j+1:]
					}
				}
				break
			}
		}
	}
	return len(args), replace, fromFile
}

// find: options, then starting points (paths), then the expression, whose
// words are patterns except the files -newer and -samefile name, and the
// commands -exec runs, with {} standing for a name find found.
func (s *pathChecker) find(c *syntax.CallExpr, args []arg) error {
	follow := &argSpec{followHint: "use find without -L/-follow"}
	i := 0
options:
	for ; i < len(args); i++ {
		switch v := args[i].value; {
		case v == "-L":
			return s.refuseFollow(c, v, follow)
		case v == "-H" || v == "-P" || strings.HasPrefix(v, "-O"):
		case v == "-D":
			i++
		default:
			break options
		}
	}
	var starts []arg
	for ; i < len(args); i++ {
		v := args[i].value
		if isOption(v) || v == "(" || v == "!" || v == "," {
			break
		}
		if err := s.word(c, args[i].w, mustPath); err != nil {
			return err
		}
		starts = append(starts, args[i])
	}
	if s.unconfined {
		if err := s.recursion(c, "find", args, starts); err != nil {
			return err
		}
	}
	for ; i < len(args); i++ {
		v := args[i].value
		switch {
		case v == "-follow":
			return s.refuseFollow(c, v, follow)
		case v == "-exec" || v == "-execdir":
			end := execEnd(args, i+1)
			if end <= i+1 {
				return nil // refused by checkFind
			}
			inner := slices.Clone(args[i+2 : end])
			for k, a := range inner {
				if strings.Contains(a.value, "{}") {
					if a.value != "{}" {
						return &CommandError{Command: printNode(c), Path: a.value,
							Reason: "with find " + v + ", {} must be a whole argument, so that it stays a name find found"}
					}
					inner[k].runtime = true
				}
			}
			if err := s.inner(c, args[i+1].value, inner); err != nil {
				return err
			}
			i = end
		case slices.Contains([]string{"-newer", "-anewer", "-cnewer", "-samefile"}, v) ||
			(len(v) == 8 && strings.HasPrefix(v, "-newer") && v[7] != 't'):
			if i+1 < len(args) {
				i++
				if err := s.word(c, args[i].w, mustPath); err != nil {
					return err
				}
			}
		default:
			if err := s.word(c, args[i].w, maybePath); err != nil {
				return err
			}
		}
	}
	return nil
}

// git: -C, --git-dir and --work-tree name directories (and -C moves the
// paths after it), then the subcommand's arguments; git grep takes a
// pattern first.
func (s *pathChecker) git(c *syntax.CallExpr, args []arg) error {
	saved := s.bases
	defer func() { s.bases = saved }()
	i := 0
globals:
	for ; i < len(args); i++ {
		v := args[i].value
		name, val, hasVal := strings.Cut(v, "=")
		switch {
		case v == "-C" || v == "--git-dir" || v == "--work-tree":
			if i+1 >= len(args) {
				return nil
			}
			i++
			if err := s.word(c, args[i].w, mustPath); err != nil {
				return err
			}
			if v == "-C" {
				if err := s.moveBases(args[i].value); err != nil {
					return err
				}
			}
		case hasVal && (name == "--git-dir" || name == "--work-tree"):
			if err := s.checkPath(c, val); err != nil {
				return err
			}
		case v == "--namespace":
			i++
		case !isOption(v):
			break globals
		}
	}
	if i >= len(args) {
		return nil
	}
	sp := gitSpec
	if args[i].value == "grep" {
		sp = gitGrepSpec
	}
	if _, err := s.generic(c, sp, args[i+1:]); err != nil {
		return err
	}
	if s.unconfined && (args[i].value == "grep" || args[i].value == "ls-files") {
		// Pathspecs are patterns, not directories: git reads from where
		// it runs.
		return s.recursion(c, "git "+args[i].value, args, nil)
	}
	return nil
}

// goCmd: go -C dir names a directory; go version reads the files it names;
// the other operands are package patterns and names.
func (s *pathChecker) goCmd(c *syntax.CallExpr, args []arg) error {
	saved := s.bases
	defer func() { s.bases = saved }()
	i := 0
	if len(args) > 1 && (args[0].value == "-C" || args[0].value == "--C") {
		if err := s.word(c, args[1].w, mustPath); err != nil {
			return err
		}
		if err := s.moveBases(args[1].value); err != nil {
			return err
		}
		i = 2
	} else if len(args) > 0 {
		if _, dir, ok := strings.Cut(args[0].value, "="); ok && (strings.HasPrefix(args[0].value, "-C=") || strings.HasPrefix(args[0].value, "--C=")) {
			if err := s.checkPath(c, dir); err != nil {
				return err
			}
			if err := s.moveBases(dir); err != nil {
				return err
			}
			i = 1
		}
	}
	version := i < len(args) && args[i].value == "version"
	for _, a := range args[min(i+1, len(args)):] {
		v := a.value
		switch {
		case isOption(v):
		case version:
			if err := s.word(c, a.w, mustPath); err != nil {
				return err
			}
		case v == "." || v == ".." || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../"):
			// A package pattern that is a directory: ./..., /x/y/...
			dir, _, _ := strings.Cut(v, "...")
			if err := s.checkPath(c, dir); err != nil {
				return err
			}
		default:
			if err := s.word(c, a.w, maybePath); err != nil {
				return err
			}
		}
	}
	return nil
}

// moveBases applies git -C dir to the directories the command may run in.
func (s *pathChecker) moveBases(dir string) error {
	moved := make([]string, 0, len(s.bases))
	for _, b := range s.bases {
		r, err := s.ws.Resolve(join(b, dir))
		if err != nil {
			return err
		}
		moved = append(moved, r)
	}
	s.bases = moved
	return nil
}
