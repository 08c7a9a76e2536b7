// Package gitguard finds, beneath a workdir, everything git reads to decide
// which programs to run when the user next runs it there — configuration
// files, hook directories and the pointers that lead git to them — so that
// the harness can keep the model from changing them. git runs those
// programs outside any sandbox: a hook or a core.fsmonitor planted by a
// confined command would run unconfined at the user's next git status.
//
// Scan maps them (the file tools refuse to write there), Take records them
// before a command runs, and Snapshot.Restore puts back afterwards what the
// command was not allowed to change. Repositories are found the way git
// finds them: the workdir's .git (a directory, a "gitdir:" file or a link),
// the repository around the workdir, commondir files, linked worktrees,
// submodules (through the gitlinks of each index, which is what git status
// recurses into, and .git/modules), core.hooksPath and included
// configuration files.
package gitguard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/internal/lib/pathfold"
)

// Options says where the user's own git configuration is. The package
// reads no environment: the program passes what it knows.
type Options struct {
	// Home expands "~/" in core.hooksPath and include paths; with "" such
	// paths are not followed.
	Home string
	// Global are the global and system configuration files git reads
	// besides the repository's (~/.gitconfig, ~/.config/git/config,
	// /etc/gitconfig): a core.hooksPath or include they set that leads
	// beneath the root is guarded too.
	Global []string
}

// Role is what git does with a guarded path.
type Role uint8

// The roles.
const (
	// Pointer is a .git entry: a git directory, a "gitdir:" file or a link
	// to a git directory.
	Pointer Role = iota + 1
	// Config is a configuration file git reads.
	Config
	// CommonDir is a commondir file, naming where a git directory's shared
	// half (configuration, hooks) lives.
	CommonDir
	// HookDir is a directory git runs hooks from.
	HookDir
	// Hook is an entry of a hooks directory.
	Hook
	// Dir is a directory on the way to one of the above (a git directory,
	// .git/modules, a submodule's worktree): replaced by a link, it would
	// lead git somewhere else.
	Dir
)

func (r Role) String() string {
	switch r {
	case Pointer:
		return "a .git entry, which tells git where the repository is"
	case Config:
		return "a git configuration file"
	case CommonDir:
		return "a git commondir file, which tells git where the configuration and hooks are"
	case HookDir:
		return "a git hooks directory"
	case Hook:
		return "a git hook"
	case Dir:
		return "a directory git reads from"
	}
	return "part of a git repository"
}

const (
	maxGitdirs   = 256
	maxListed    = 4096 // directories one Scan lists, whatever a .git leads to
	maxHooks     = 1000
	maxIncludes  = 10
	maxDepth     = 8
	maxSmallFile = 64 << 10 // .git files, commondir
	maxConfig    = 4 << 20
)

// Layout is what git would read beneath a root, as found by Scan.
type Layout struct {
	root    string
	slots   map[string]Role
	gitdirs []string // git directories beneath the root
	trees   []string // git directories and hooks directories beneath the root
	configs []string // every configuration file read, beneath the root or not
}

// Scan maps what git reads beneath root, which must be absolute with its
// symbolic links resolved. Unreadable parts are skipped: what cannot be
// read cannot be followed by git either.
func Scan(root string, opt Options) *Layout {
	s := &scanner{root: filepath.Clean(root), opt: opt, seen: map[string]bool{}, slotted: map[string]bool{},
		l: &Layout{root: filepath.Clean(root), slots: map[string]Role{}}}
	s.pointer(s.root, filepath.Join(s.root, ".git"))
	// The repository around the root: its configuration may name hooks or
	// includes beneath the root, its index submodules beneath it.
	for d := filepath.Dir(s.root); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			s.pointer(d, filepath.Join(d, ".git"))
			break
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return s.l
}

// Slots returns the guarded paths, a directory before what it holds.
func (l *Layout) Slots() []Slot {
	out := make([]Slot, 0, len(l.slots))
	for p, r := range l.slots {
		out = append(out, Slot{Path: p, Role: r})
	}
	slices.SortFunc(out, func(a, b Slot) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Slot is one guarded path.
type Slot struct {
	Path string // absolute, beneath the root
	Role Role
}

// Protects reports whether a write to abs (absolute, beneath the root)
// would change what git runs, and says what abs is: anything named .git or
// beneath one, anything in a git or hooks directory, a configuration file
// git includes.
func (l *Layout) Protects(abs string) (what string, ok bool) {
	abs = filepath.Clean(abs)
	if rel, err := filepath.Rel(l.root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		for _, c := range strings.Split(rel, string(filepath.Separator)) {
			if strings.EqualFold(c, ".git") {
				return "inside a git directory", true
			}
		}
	}
	// Compared as a case-insensitive file system (macOS, Windows) would:
	// there "P.CFG" and ".GitHooks" open what git reads as "p.cfg" and
	// ".githooks".
	if r, ok := l.slots[abs]; ok && r != Dir {
		return r.String(), true
	}
	for p, r := range l.slots {
		if r != Dir && pathfold.Same(p, abs) {
			return r.String(), true
		}
	}
	for _, d := range l.gitdirs {
		if pathfold.Within(d, abs) {
			return "inside a git directory", true
		}
	}
	for _, t := range l.trees {
		if pathfold.Within(t, abs) {
			return "in a directory git runs hooks from", true
		}
	}
	return "", false
}

// isGitdir reports whether d is one of the git directories found.
func (l *Layout) isGitdir(d string) bool { return slices.Contains(l.gitdirs, d) }

// within reports whether p is dir or beneath it (both clean and absolute).
func within(dir, p string) bool {
	if p == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, dir) && len(p) > len(dir) && p[len(dir)] == filepath.Separator
}
