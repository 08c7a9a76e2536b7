package builtin

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/harness9/harness9/tool"
)

// skippedDirs are version-control directories no listing or search enters.
var skippedDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

// ignoreRules is the stack of .gitignore patterns in effect for one
// directory. Patterns carry their directory (domain) relative to the
// workspace root, so one list serves the whole subtree; a directory without
// a .gitignore shares its parent's rules.
type ignoreRules struct {
	patterns []gitignore.Pattern
}

// ignored reports whether the entry at parts (relative to the workspace
// root) is excluded. Later patterns win, as in git.
func (r *ignoreRules) ignored(parts []string, isDir bool) bool {
	if r == nil {
		return false
	}
	for i := len(r.patterns) - 1; i >= 0; i-- {
		if m := r.patterns[i].Match(parts, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// with returns the rules extended by the ignore file at path, if there is
// one; domain is the file's directory relative to the workspace root.
func (r *ignoreRules) with(path string, domain []string) *ignoreRules {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return r
	}
	var added []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		added = append(added, gitignore.ParsePattern(line, domain))
	}
	if len(added) == 0 {
		return r
	}
	out := &ignoreRules{}
	if r != nil {
		out.patterns = slices.Clip(r.patterns)
	}
	out.patterns = append(out.patterns, added...)
	return out
}

// node is one directory entry found by a walk.
type node struct {
	abs   string   // absolute path, inside the workspace
	parts []string // path components relative to the workspace root
	isDir bool
	// link is set for a symlink whose target is inside the workspace; abs is
	// then the resolved target. Walks list linked directories but do not
	// descend into them, which rules out cycles.
	link bool
}

// rel is the entry's path relative to the workspace root, for display.
func (n node) rel() string { return filepath.Join(n.parts...) }

// walker lists directories for list_files, glob and search_files: .git and
// friends skipped, .gitignore respected, symlinks leading out of the
// workspace dropped.
type walker struct {
	ws *tool.Workspace
}

// start prepares a walk of dir (absolute, resolved, inside the workspace):
// its components relative to the root and the ignore rules inherited from
// the root down to it. A start directory that is itself ignored is walked
// anyway, without the rules that ignore it: the model asked for it by name.
func (w walker) start(dir string) (parts []string, rules *ignoreRules) {
	rel := w.ws.Rel(dir)
	if rel != "." && !filepath.IsAbs(rel) {
		parts = strings.Split(rel, string(filepath.Separator))
	}
	root := w.ws.Root()
	rules = rules.with(filepath.Join(root, ".git", "info", "exclude"), nil)
	cur := root
	for i := 0; i <= len(parts); i++ {
		if i > 0 {
			cur = filepath.Join(cur, parts[i-1])
			if rules.ignored(parts[:i], true) {
				rules = nil // asked for explicitly: only its own .gitignore files apply
			}
		}
		if i < len(parts) { // the start directory's own file is read by list
			rules = rules.with(filepath.Join(cur, ".gitignore"), parts[:i])
		}
	}
	return parts, rules
}

// list returns the entries of dir that a walk should see, sorted so that a
// depth-first walk visits paths in byte order of their full path (a
// directory sorts as its name plus "/"), and the ignore rules for its
// subdirectories.
func (w walker) list(dir string, parts []string, rules *ignoreRules) ([]node, *ignoreRules, error) {
	rules = rules.with(filepath.Join(dir, ".gitignore"), parts)
	des, err := os.ReadDir(dir)
	if err != nil && len(des) == 0 {
		return nil, rules, err
	}
	nodes := make([]node, 0, len(des))
	for _, de := range des {
		name := de.Name()
		typ := de.Type()
		if typ.IsDir() && skippedDirs[name] {
			continue
		}
		n := node{abs: filepath.Join(dir, name), parts: append(slices.Clip(parts), name), isDir: typ.IsDir()}
		if w.ws.Denied(n.abs) {
			continue // ~/.ssh and friends, when the workspace holds the home directory
		}
		if typ&fs.ModeSymlink != 0 {
			target, err := w.ws.Resolve(n.abs)
			if err != nil {
				continue // leads out of the workspace or into the deny list
			}
			fi, err := os.Stat(target)
			if err != nil {
				continue // dangling
			}
			n.abs, n.isDir, n.link = target, fi.IsDir(), true
		} else if !typ.IsDir() && !typ.IsRegular() {
			continue // sockets, devices, pipes: nothing to read
		}
		if rules.ignored(n.parts, n.isDir) {
			continue
		}
		nodes = append(nodes, n)
	}
	slices.SortFunc(nodes, func(a, b node) int { return strings.Compare(sortKey(a), sortKey(b)) })
	return nodes, rules, nil
}

func sortKey(n node) string {
	name := n.parts[len(n.parts)-1]
	if n.isDir {
		return name + "/"
	}
	return name
}
