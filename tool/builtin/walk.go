package builtin

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/internal/lib/ignore"
	"github.com/harness9/harness9/tool"
)

// node is one directory entry found by a walk.
type node struct {
	parts []string // path components relative to the workspace root
	isDir bool
	// link is set for a symlink whose target is inside the workspace (and
	// out of the deny list). Walks list linked directories but do not
	// descend into them, which rules out cycles; a linked file is opened
	// through the workspace, which follows the link beneath the root.
	link bool
}

// rel is the entry's path relative to the workspace root, for display and
// for opening it through the workspace.
func (n node) rel() string { return relOf(n.parts) }

func relOf(parts []string) string {
	if len(parts) == 0 {
		return "."
	}
	return filepath.Join(parts...)
}

// walker lists directories for list_files, glob and search_files: .git and
// friends skipped, .gitignore respected, symlinks leading out of the
// workspace dropped. Every directory and file is opened through the
// workspace's os.Root, by its path relative to the root.
type walker struct {
	ws *tool.Workspace
}

// readIgnore reads an ignore file through the workspace: one that is a
// FIFO, or a link leading out or to a key file, is no ignore file.
func (w walker) readIgnore(rel string) []byte {
	data, _, err := w.ws.ReadFile(rel, ignore.MaxFile)
	if err != nil {
		return nil
	}
	return data
}

// start prepares a walk of dir (absolute, as Resolve returned it): its
// components relative to the root and the ignore rules inherited from the
// root down to it. A start directory that is itself ignored is walked
// anyway, without the rules that ignore it: the model asked for it by name.
func (w walker) start(dir string) (parts []string, rules *ignore.Rules) {
	rel := w.ws.Rel(dir)
	if rel != "." && !filepath.IsAbs(rel) {
		parts = strings.Split(rel, string(filepath.Separator))
	}
	rules = rules.With(w.readIgnore(filepath.Join(".git", "info", "exclude")), nil)
	for i := 0; i <= len(parts); i++ {
		if i > 0 && rules.Ignored(parts[:i], true) {
			rules = nil // asked for explicitly: only its own .gitignore files apply
		}
		if i < len(parts) { // the start directory's own file is read by list
			rules = rules.With(w.readIgnore(filepath.Join(relOf(parts[:i]), ".gitignore")), parts[:i])
		}
	}
	return parts, rules
}

// open opens the directory at parts for listing. parent, when not nil, is
// the open directory holding it, as a walk found it: the child is then
// opened by name relative to it, one system call that cannot follow a link
// swapped in since, instead of resolving the whole path from the root again.
func (w walker) open(parent *os.File, parts []string) (*os.File, error) {
	if parent != nil {
		if d, handled := openChildDir(parent, parts[len(parts)-1]); handled {
			if d == nil {
				return nil, fmt.Errorf("%q cannot be opened", relOf(parts))
			}
			return d, nil
		}
	}
	d, fi, err := w.ws.Open(relOf(parts))
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		_ = d.Close()
		return nil, fmt.Errorf("%q is not a directory", relOf(parts))
	}
	return d, nil
}

// list returns the entries of d, the open directory at parts, that a walk
// should see, sorted so that a depth-first walk visits paths in byte order
// of their full path (a directory sorts as its name plus "/"), and the
// ignore rules for its subdirectories.
func (w walker) list(d *os.File, parts []string, rules *ignore.Rules) ([]node, *ignore.Rules, error) {
	rel := relOf(parts)
	data, handled := readChild(d, ".gitignore", ignore.MaxFile)
	if !handled {
		data = w.readIgnore(filepath.Join(rel, ".gitignore"))
	}
	rules = rules.With(data, parts)
	des, err := d.ReadDir(-1)
	if err != nil && len(des) == 0 {
		return nil, rules, err
	}
	abs := filepath.Join(w.ws.Root(), rel)
	nodes := make([]node, 0, len(des))
	for _, de := range des {
		name := de.Name()
		typ := de.Type()
		if typ.IsDir() && ignore.SkippedDirs[name] {
			continue
		}
		n := node{parts: append(slices.Clip(parts), name), isDir: typ.IsDir()}
		if w.ws.Denied(filepath.Join(abs, name)) {
			continue // ~/.ssh and friends, when the workspace holds the home directory
		}
		if typ&fs.ModeSymlink != 0 {
			// Stat follows the link beneath the root and refuses one
			// leading out of the workspace or into the deny list.
			fi, err := w.ws.Stat(n.rel())
			if err != nil || !fi.IsDir() && !fi.Mode().IsRegular() {
				continue // leads out, dangling, or to a pipe or device
			}
			n.isDir, n.link = fi.IsDir(), true
		} else if !typ.IsDir() && !typ.IsRegular() {
			continue // sockets, devices, pipes: nothing to read
		}
		if rules.Ignored(n.parts, n.isDir) {
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
