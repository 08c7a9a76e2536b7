package planning

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/tool"
	"mvdan.cc/sh/v3/syntax"
)

// The read sandbox of Plan Mode's bash gate. CheckReadOnlyCommand proves a
// command changes nothing; checkPaths proves it reads nothing outside the
// workspace. Every word a command could open as a file is resolved with the
// Workspace (symlinks followed, the home deny list applied) from every
// directory the command may run in. Words a command takes as a pattern or
// script are not paths, but since how a command parses its arguments varies
// between platforms, they are still refused when they name an existing
// location outside the workspace.

const (
	maxGlobMatches = 10000 // glob matches checked one by one; more is refused
	maxBases       = 16    // directories a command may cd into
)

// checkKind says how strictly a word is checked.
type checkKind int

const (
	mustPath  checkKind = iota // a file the command reads: must resolve inside the workspace
	maybePath                  // a pattern, script or option value: refused if it names an existing location outside
	optValue                   // the value of a known non-path option: as maybePath, but one character is fine (cut -d /)
)

const literalPaths = "file paths must be literal in Plan Mode so they can be checked against the workspace; " +
	"write the path out, relative to the workspace root, instead of a variable or substitution"

type sandbox struct {
	ws        *tool.Workspace
	home      string            // for ~; "" when unknown (a ~ path is then refused)
	bases     []string          // the directories the command may run in: the root and every cd target
	loopVars  map[string][]word // for-loop variable → the static words it iterates over
	inputVars map[string]bool   // variables bound from input (read) or from a non-static list
}

// pathArg is one argument of a command with its static value, if known.
type pathArg struct {
	w      *syntax.Word
	value  string
	static bool
	glob   bool
}

func checkPaths(file *syntax.File, ws *tool.Workspace) error {
	s := &sandbox{ws: ws, bases: []string{ws.Root()}, loopVars: map[string][]word{}, inputVars: map[string]bool{}}
	s.home, _ = os.UserHomeDir()
	if err := s.collect(file); err != nil {
		return err
	}
	var firstErr error
	syntax.Walk(file, func(n syntax.Node) bool {
		if firstErr != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				if r.Op == syntax.RdrIn && firstErr == nil {
					firstErr = s.word(n, r.Word, mustPath)
				}
			}
		case *syntax.CallExpr:
			firstErr = s.call(n)
		}
		return firstErr == nil
	})
	return firstErr
}

// collect records loop and read variables and the directories cd may
// enter, in source order, before any path is checked.
func (s *sandbox) collect(file *syntax.File) error {
	var err error
	syntax.Walk(file, func(n syntax.Node) bool {
		if err != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.ForClause:
			if it, ok := n.Loop.(*syntax.WordIter); ok {
				if len(it.Items) == 0 { // for f; do ... iterates the positional parameters
					s.inputVars[it.Name.Value] = true
				}
				for _, w := range it.Items {
					if lit, ok := literal(w); ok {
						s.loopVars[it.Name.Value] = append(s.loopVars[it.Name.Value], lit)
					} else {
						s.inputVars[it.Name.Value] = true
					}
				}
			}
			err = noCdIn(n.Do)
		case *syntax.WhileClause:
			err = noCdIn(append(slices.Clone(n.Cond), n.Do...))
		case *syntax.CallExpr:
			switch name, args := callArgs(n); name {
			case "read":
				for _, a := range args {
					if a.static {
						s.inputVars[a.value] = true
					}
				}
			case "cd":
				err = s.cd(n, args)
			}
		}
		return err == nil
	})
	return err
}

// noCdIn refuses cd in a loop body: the directory would change on every
// pass, so the paths after it could not be checked.
func noCdIn(stmts []*syntax.Stmt) error {
	var err error
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && err == nil {
				if name, _ := callArgs(c); name == "cd" {
					err = &CommandError{Command: printNode(c), Path: printNode(c),
						Reason: "cd inside a loop is not allowed in Plan Mode (the paths after it could not be checked); cd once before the loop, or use paths relative to the workspace root"}
				}
			}
			return err == nil
		})
	}
	return err
}

// cd checks a cd target from every directory the command may be in and adds
// where it leads to those directories.
func (s *sandbox) cd(c *syntax.CallExpr, args []pathArg) error {
	for len(args) > 0 && args[0].static && slices.Contains([]string{"-L", "-P", "-e", "-@", "--"}, args[0].value) {
		args = args[1:]
	}
	refuse := func(reason string) error {
		return &CommandError{Command: printNode(c), Reason: reason, Path: printNode(c)}
	}
	if len(args) == 0 {
		return refuse("cd without a directory goes to the home directory, outside the workspace; cd to a directory inside the workspace, or use paths relative to its root")
	}
	for _, a := range args {
		switch {
		case !a.static:
			return refuse(literalPaths)
		case a.value == "-":
			return refuse("cd - returns to a directory that cannot be checked; cd to a directory inside the workspace")
		case a.glob:
			return refuse("cd to a glob cannot be checked; name the directory")
		case os.Getenv("CDPATH") != "" && !filepath.IsAbs(a.value) && !strings.HasPrefix(a.value, "~") &&
			!strings.HasPrefix(a.value, "./") && !strings.HasPrefix(a.value, "../") && a.value != "." && a.value != "..":
			return refuse("CDPATH is set, so cd " + a.value + " may leave the workspace; write cd ./" + a.value)
		}
		p, reason := s.expandTilde(a.value)
		if reason != "" {
			return s.refusePath(c, a.value, reason)
		}
		var next []string
		for _, b := range s.bases {
			r, err := s.ws.Resolve(join(b, p))
			if err != nil {
				return s.refusePath(c, a.value, err.Error())
			}
			if !slices.Contains(s.bases, r) && !slices.Contains(next, r) {
				next = append(next, r)
			}
		}
		s.bases = append(s.bases, next...)
		if len(s.bases) > maxBases {
			return refuse("too many cd commands to check; use paths relative to the workspace root instead")
		}
	}
	return nil
}

// call checks the path arguments of one simple command.
func (s *sandbox) call(c *syntax.CallExpr) error {
	name, args := callArgs(c)
	switch name {
	case "", "cd": // cd was checked by collect
		return nil
	case "xargs":
		return &CommandError{Command: printNode(c), Path: "xargs",
			Reason: "xargs passes its input to the command as arguments, usually file names, which cannot be checked against the workspace; " +
				"name the files directly, or search with grep -r, rg or search_files"}
	case "find":
		return s.find(c, args)
	case "git":
		return s.git(c, args)
	}
	sp, ok := pathSpecs[name]
	if !ok {
		sp = &argSpec{}
	}
	if sp.noPaths {
		return nil
	}
	return s.generic(c, sp, args)
}

// word checks one shell word. A word that is not static may only be a
// process substitution <(...) or a for-loop variable iterating over static
// words, which are checked in its place.
func (s *sandbox) word(n syntax.Node, w *syntax.Word, kind checkKind) error {
	if lit, ok := literal(w); ok {
		return s.value(n, lit.value, lit.glob, kind)
	}
	if len(w.Parts) == 1 {
		if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok && ps.Op == syntax.CmdIn {
			return nil // a pipe; the commands inside are checked on their own
		}
	}
	if name, quoted, ok := paramRef(w); ok && !s.inputVars[name] && len(s.loopVars[name]) > 0 {
		for _, lv := range s.loopVars[name] {
			parts := []string{lv.value}
			if !quoted { // unquoted: split into words, each globbed
				parts = strings.Fields(lv.value)
			}
			for _, p := range parts {
				if strings.HasPrefix(p, "-") {
					return &CommandError{Command: printNode(n), Path: p,
						Reason: fmt.Sprintf("the loop variable $%s takes the value %q, which a command would read as an option; use literal options", name, p)}
				}
				if err := s.value(n, p, lv.glob || (!quoted && strings.ContainsAny(p, "*?[")), kind); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return &CommandError{Command: printNode(n), Reason: literalPaths, Path: printNode(w)}
}

// paramRef recognises $name, ${name} and "$name".
func paramRef(w *syntax.Word) (name string, quoted, ok bool) {
	if len(w.Parts) != 1 {
		return "", false, false
	}
	part := w.Parts[0]
	if dq, isDQ := part.(*syntax.DblQuoted); isDQ && !dq.Dollar && len(dq.Parts) == 1 {
		part, quoted = dq.Parts[0], true
	}
	p, isPE := part.(*syntax.ParamExp)
	if !isPE || p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil ||
		p.Repl != nil || p.Names != 0 || p.Exp != nil {
		return "", false, false
	}
	return p.Param.Value, quoted, true
}

func (s *sandbox) value(n syntax.Node, v string, glob bool, kind checkKind) error {
	if kind == mustPath {
		return s.checkPath(n, v, glob)
	}
	return s.checkMaybe(n, v, glob, kind)
}

// checkPath requires a path to resolve inside the workspace from every
// directory the command may run in. A glob is checked on its literal
// directory, on the pattern itself and on every current match.
func (s *sandbox) checkPath(n syntax.Node, v string, glob bool) error {
	switch v {
	case "-", "/dev/null", "/dev/stdin":
		return nil
	}
	p, reason := s.expandTilde(v)
	if reason != "" {
		return s.refusePath(n, v, reason)
	}
	if !glob {
		return s.inside(n, v, p)
	}
	if strings.Contains(p, "{") {
		return s.refusePath(n, v, "brace expansion in a path cannot be checked; list the paths one by one")
	}
	dir := "."
	if i := strings.IndexAny(p, "*?["); i >= 0 {
		dir = filepath.Dir(p[:i])
	}
	if err := s.inside(n, v, dir); err != nil {
		return err
	}
	if err := s.inside(n, v, p); err != nil { // lexically: */../../etc climbs out
		return err
	}
	for _, b := range s.bases {
		matches, err := filepath.Glob(join(b, p))
		if err != nil {
			continue // a malformed pattern stays a literal word, checked above
		}
		if len(matches) > maxGlobMatches {
			return s.refusePath(n, v, fmt.Sprintf("the glob matches more than %d files, too many to check; narrow it", maxGlobMatches))
		}
		for _, m := range matches {
			if _, err := s.ws.Resolve(m); err != nil {
				return s.refusePath(n, v, fmt.Sprintf("it matches %s, and %v", s.ws.Rel(m), err))
			}
		}
	}
	return nil
}

// checkMaybe refuses a word that is not meant as a path when it names an
// existing location outside the workspace, or starts with ~.
func (s *sandbox) checkMaybe(n syntax.Node, v string, glob bool, kind checkKind) error {
	if strings.HasPrefix(v, "~") || glob {
		return s.checkPath(n, v, glob)
	}
	if kind == optValue && len(v) <= 1 {
		return nil
	}
	for _, b := range s.bases {
		abs := join(b, v)
		if _, err := s.ws.Resolve(abs); err != nil {
			if _, statErr := os.Stat(abs); statErr == nil {
				return s.refusePath(n, v, "it names a location outside the workspace, which the command could read as a file ("+err.Error()+")")
			}
		}
	}
	return nil
}

func (s *sandbox) inside(n syntax.Node, shown, p string) error {
	for _, b := range s.bases {
		abs := join(b, p)
		if _, err := s.ws.Resolve(abs); err != nil {
			reason := err.Error()
			if strings.HasPrefix(abs, s.ws.Root()+string(filepath.Separator)) && strings.Contains(reason, "outside the workspace") {
				reason += " (it goes through a symlink that leads out of the workspace)"
			}
			return s.refusePath(n, shown, reason)
		}
	}
	return nil
}

// expandTilde expands ~ and ~/... to the home directory, as bash would (a
// quoted ~ is expanded too, which only refuses more). ~user is refused.
func (s *sandbox) expandTilde(v string) (string, string) {
	if !strings.HasPrefix(v, "~") {
		return v, ""
	}
	if rest := v[1:]; rest != "" && rest[0] != '/' {
		return "", "~name paths lead into another user's home directory, outside the workspace"
	}
	if s.home == "" {
		return "", "~ is the home directory, which is outside the workspace"
	}
	return s.home + v[1:], ""
}

func (s *sandbox) refusePath(n syntax.Node, path, reason string) error {
	return &CommandError{Command: printNode(n), Path: path,
		Reason: fmt.Sprintf("%q: %s", path, reason)}
}

// join resolves p against the directory base unless p is absolute.
func join(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// callArgs returns a command's literal name and its arguments.
func callArgs(c *syntax.CallExpr) (string, []pathArg) {
	if len(c.Args) == 0 {
		return "", nil
	}
	name, ok := literal(c.Args[0])
	if !ok {
		return "", nil
	}
	args := make([]pathArg, 0, len(c.Args)-1)
	for _, w := range c.Args[1:] {
		lit, ok := literal(w)
		args = append(args, pathArg{w: w, value: lit.value, static: ok, glob: lit.glob})
	}
	return name.value, args
}
