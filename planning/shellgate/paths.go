package shellgate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/tool"
	"mvdan.cc/sh/v3/syntax"
)

// The read check of WithWorkspace. checkReadOnly proves a command changes
// nothing; checkPaths that it names nothing outside the workspace. Every
// word a command could open as a file is resolved with the Workspace the
// way the kernel would (symlinks followed, ".." applied to where they led,
// the deny list refused) from every directory the command may run in.
// Words a command takes as a pattern or script are not paths, but since
// how a command parses its arguments varies between platforms, they are
// still refused when they name an existing location outside the workspace.
// File names that only exist at run time ($(...) operands, xargs input,
// find -exec's {}) must come from a command that lists the workspace's
// files (lister.go); where those lead through symlinks is the kernel
// sandbox's to stop.

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
	"write the path out, relative to the workspace root, instead of a variable or substitution " +
	"(file lists from find or git ls-files, as $(...) or through xargs, are fine)"

type pathChecker struct {
	ws        *tool.Workspace
	bases     []string                  // the directories the command may run in: the root and every cd target
	loopVars  map[string][]word         // for-loop variable → the static words it iterates over
	inputVars map[string]bool           // variables bound from input (read) or from a non-static list
	fed       map[*syntax.CallExpr]bool // xargs calls whose input is a file list
	// unconfined: no kernel sandbox will stop a recursive read below a
	// denied location (WithoutKernelSandbox).
	unconfined bool
}

func checkPaths(file *syntax.File, ws *tool.Workspace, unconfined bool) error {
	s := &pathChecker{ws: ws, bases: []string{ws.Root()}, loopVars: map[string][]word{},
		inputVars: map[string]bool{}, fed: fedXargs(file), unconfined: unconfined}
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
		case *syntax.ForClause:
			firstErr = s.loopItems(n)
		}
		return firstErr == nil
	})
	return firstErr
}

// loopItems checks the globs a for loop iterates over: bash expands them
// to the names of files, which the loop body may print (echo $f) without
// any command reading them.
func (s *pathChecker) loopItems(n *syntax.ForClause) error {
	it, ok := n.Loop.(*syntax.WordIter)
	if !ok {
		return nil
	}
	for _, w := range it.Items {
		if err := s.expansion(n, w); err != nil {
			return err
		}
	}
	return nil
}

// expansion checks a word that is not read as a path but that bash may
// still expand to file names (echo's and printf's operands, a for loop's
// list): every directory the glob lists must lie inside the workspace and
// outside its deny list, and ~ may not lead a glob. The names it yields
// are only printed, so where they lead does not matter.
func (s *pathChecker) expansion(n syntax.Node, w *syntax.Word) error {
	lit, ok := literal(w)
	switch {
	case !ok || !lit.glob:
		return nil
	case lit.tilde:
		return s.refusePath(n, lit.value, homeOutside)
	}
	pattern, unquoted := wordPattern(w)
	if !strings.ContainsAny(unquoted, "*?[") {
		return nil // brace expansion alone makes words, not file names
	}
	if strings.Contains(unquoted, "{") {
		return s.refusePath(n, lit.value, "brace expansion in a glob cannot be checked; list the patterns one by one")
	}
	comps := globComponents(pattern)
	for _, b := range s.bases {
		start := b
		if strings.HasPrefix(pattern, "/") {
			start = ""
		}
		for k, c := range comps {
			if !c.wild {
				continue
			}
			dirs, err := expandGlob(start, comps[:k])
			if err != nil {
				return s.refusePath(n, lit.value, err.Error())
			}
			for _, d := range dirs {
				if d == "" {
					d = "/"
				}
				if _, err := s.ws.Resolve(d); err != nil {
					return s.refusePath(n, lit.value, "it lists "+s.listed(d, err))
				}
			}
		}
	}
	return nil
}

// listed words why a directory a glob would list is refused, naming it
// only when it lies inside the workspace.
func (s *pathChecker) listed(dir string, err error) string {
	if rel := s.ws.Rel(dir); !filepath.IsAbs(rel) {
		return fmt.Sprintf("%s, and %v", rel, err)
	}
	return "a directory outside the workspace, which Plan Mode's bash may not list"
}

// collect records loop and read variables and the directories cd may
// enter, in source order, before any path is checked.
func (s *pathChecker) collect(file *syntax.File) error {
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
					if lit, ok := literal(w); ok && !lit.tilde {
						lit.pattern, _ = wordPattern(w)
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
			name, args, _ := callArgs(n)
			switch name.value {
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
				if name, _, _ := callArgs(c); name.value == "cd" {
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
func (s *pathChecker) cd(c *syntax.CallExpr, args []arg) error {
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
		case a.tilde:
			return s.refusePath(c, a.value, homeOutside)
		case a.value == "-":
			return refuse("cd - returns to a directory that cannot be checked; cd to a directory inside the workspace")
		case a.glob:
			return refuse("cd to a glob cannot be checked; name the directory")
		}
		var next []string
		for _, b := range s.bases {
			r, err := s.ws.Resolve(join(b, a.value))
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

const homeOutside = "~ is the home directory, outside the workspace; use paths relative to the workspace root"

// word checks one shell word. A word that is not static may only be a
// process substitution <(...), a file list $(find ...), or a for-loop
// variable iterating over static words, which are checked in its place.
func (s *pathChecker) word(n syntax.Node, w *syntax.Word, kind checkKind) error {
	if lit, ok := literal(w); ok {
		switch {
		case lit.tilde:
			return s.refusePath(n, lit.value, homeOutside)
		case lit.glob:
			return s.glob(n, w, lit.value)
		}
		return s.value(n, lit.value, kind)
	}
	if len(w.Parts) == 1 {
		if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok && ps.Op == syntax.CmdIn {
			return nil // a pipe; the commands inside are checked on their own
		}
	}
	if listsFiles(w) {
		return nil
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
				var err error
				switch {
				case lv.glob && len(parts) == 1:
					err = s.globValue(n, p, lv.pattern)
				case lv.glob:
					err = s.refusePath(n, lv.value, "a loop over a glob holding blanks cannot be checked; quote the variable")
				}
				if err == nil && !quoted && strings.ContainsAny(p, "*?[") {
					err = s.globValue(n, p, p) // an unquoted value is globbed again
				} else if err == nil && !lv.glob {
					err = s.value(n, p, kind)
				}
				if err != nil {
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

func (s *pathChecker) value(n syntax.Node, v string, kind checkKind) error {
	if kind == mustPath {
		return s.checkPath(n, v)
	}
	return s.checkMaybe(n, v, kind)
}

// checkPath requires a path to resolve inside the workspace from every
// directory the command may run in.
func (s *pathChecker) checkPath(n syntax.Node, v string) error {
	switch v {
	case "-", "/dev/null", "/dev/stdin":
		return nil
	}
	for _, b := range s.bases {
		abs := join(b, v)
		if _, err := s.ws.Resolve(abs); err != nil {
			reason := err.Error()
			if strings.HasPrefix(abs, s.ws.Root()+string(filepath.Separator)) && strings.Contains(reason, "outside the workspace") {
				reason += " (it goes through a symlink that leads out of the workspace)"
			}
			return s.refusePath(n, v, reason)
		}
	}
	return nil
}

// checkMaybe refuses a word that is not meant as a path when it names an
// existing location outside the workspace.
func (s *pathChecker) checkMaybe(n syntax.Node, v string, kind checkKind) error {
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

func (s *pathChecker) refusePath(n syntax.Node, path, reason string) error {
	return &CommandError{Command: printNode(n), Path: path,
		Reason: fmt.Sprintf("%q: %s", path, reason)}
}

// join puts p below base unless p is absolute, without cleaning: "link/.."
// must climb from where link leads, as the kernel does, and Resolve does
// the same.
func join(base, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return base + string(filepath.Separator) + p
}
