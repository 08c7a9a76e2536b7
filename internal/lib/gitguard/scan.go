package gitguard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// scanner walks from a .git entry to everything git reads beneath the
// root, the way git finds it.
type scanner struct {
	root    string
	opt     Options
	l       *Layout
	seen    map[string]bool // gitdir + worktree already scanned
	slotted map[string]bool // gitdirs whose slots are recorded
	listed  int             // directories listed so far (maxListed)
}

func (s *scanner) add(p string, r Role) {
	p = filepath.Clean(p)
	if !within(s.root, p) {
		return
	}
	if old, ok := s.l.slots[p]; !ok || r < old {
		s.l.slots[p] = r
	}
	for a := filepath.Dir(p); a != s.root && within(s.root, a); a = filepath.Dir(a) {
		if _, ok := s.l.slots[a]; ok {
			break
		}
		s.l.slots[a] = Dir
	}
	// A link: what it leads to is read by git too.
	if r == Config {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if t, err := filepath.EvalSymlinks(p); err == nil && within(s.root, t) && t != p {
				s.add(t, Config)
			}
		}
	}
}

// pointer records a .git entry of a worktree and scans the git directory
// it leads to.
func (s *scanner) pointer(worktree, p string) {
	s.add(p, Pointer)
	if d := gitdirOf(p); d != "" {
		s.gitdir(d, worktree)
	}
}

// gitdirOf returns the git directory a .git entry leads to, "" for none.
func gitdirOf(p string) string {
	fi, err := os.Lstat(p)
	if err != nil {
		return ""
	}
	target := p
	if fi.Mode().IsRegular() {
		b, err := readRegular(p, maxSmallFile)
		if err != nil {
			return ""
		}
		// As git reads it (read_gitfile_gently): "gitdir: " and the rest
		// of the file up to its final line ends, blanks and all.
		v, ok := strings.CutPrefix(gitPath(b), "gitdir: ")
		if !ok || v == "" {
			return ""
		}
		target = resolveFrom(filepath.Dir(p), v)
	}
	return realDir(target)
}

// gitPath is a path file's content (.git, commondir, gitdir) as git takes
// it: the whole file without its trailing carriage returns and newlines.
// Blanks and inner lines are part of the path, so a file cannot make this
// package look at one directory while git uses another.
func gitPath(b []byte) string {
	return strings.TrimRight(string(b), "\r\n")
}

// realDir returns p with its links resolved when it is a directory, else "".
func realDir(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
		return ""
	}
	return r
}

// resolveFrom makes p absolute against dir.
func resolveFrom(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// gitdir scans a git directory used by worktree ("" when unknown): its
// slots, its common directory, the configuration git would read there, and
// the submodules and linked worktrees it has.
func (s *scanner) gitdir(d, worktree string) {
	key := d + "\x00" + worktree
	if s.seen[key] || len(s.seen) >= maxGitdirs {
		return
	}
	s.seen[key] = true
	s.slots(d)
	common := d
	if b, err := readRegular(filepath.Join(d, "commondir"), maxSmallFile); err == nil {
		if c := realDir(resolveFrom(d, gitPath(b))); c != "" {
			common = c
			s.slots(common)
		}
	}
	// The worktrees git may use with this directory: the one it was found
	// from and the one core.worktree names (a directory relative to the git
	// directory, which git prefers). Both are scanned, so a core.worktree
	// pointed elsewhere, which is a harmless setting by itself, cannot move
	// the submodules and a relative core.hooksPath where the guard does not
	// look.
	var worktrees, hookPaths []string
	if worktree != "" {
		worktrees = append(worktrees, worktree)
	}
	hashLen := 20
	files := append(slices.Clone(s.opt.Global), filepath.Join(common, "config"), filepath.Join(d, "config"),
		filepath.Join(d, "config.worktree"))
	for _, f := range files {
		s.config(f, 0, func(st setting) {
			switch {
			case st.section == "core" && st.key == "hookspath":
				hookPaths = append(hookPaths, st.value)
			case st.section == "core" && st.key == "worktree":
				if wt := resolveFrom(d, st.value); wt != "" && !slices.Contains(worktrees, wt) {
					worktrees = append(worktrees, wt)
				}
			case st.section == "extensions" && st.key == "objectformat" && strings.EqualFold(st.value, "sha256"):
				hashLen = 32
			}
		})
	}
	for _, v := range hookPaths {
		s.hooksPath(v, "")
		for _, wt := range worktrees {
			s.hooksPath(v, wt)
		}
	}
	if len(worktrees) > 0 {
		links, _ := gitlinks(filepath.Join(d, "index"), hashLen)
		for _, wt := range worktrees {
			for _, p := range links {
				sub := filepath.Join(wt, filepath.FromSlash(p))
				s.pointer(sub, filepath.Join(sub, ".git"))
			}
		}
	}
	s.modules(filepath.Join(common, "modules"), 0)
	if common != d {
		s.modules(filepath.Join(d, "modules"), 0)
	}
	s.worktrees(filepath.Join(common, "worktrees"))
}

// slots records the guarded files of a git directory beneath the root.
func (s *scanner) slots(d string) {
	if s.slotted[d] || !within(s.root, d) {
		return
	}
	s.slotted[d] = true
	s.l.gitdirs = append(s.l.gitdirs, d)
	s.l.trees = append(s.l.trees, d)
	s.add(filepath.Join(d, "config"), Config)
	s.add(filepath.Join(d, "config.worktree"), Config)
	s.add(filepath.Join(d, "commondir"), CommonDir)
	s.hookDir(filepath.Join(d, "hooks"))
}

// hookDir records a hooks directory and its entries.
func (s *scanner) hookDir(h string) {
	if !within(s.root, h) {
		return
	}
	s.add(h, HookDir)
	s.l.trees = append(s.l.trees, h)
	fi, err := os.Lstat(h)
	if err != nil || !fi.IsDir() {
		return
	}
	entries, err := os.ReadDir(h)
	if err != nil {
		return
	}
	for i, e := range entries {
		if i >= maxHooks {
			break
		}
		s.add(filepath.Join(h, e.Name()), Hook)
	}
}

// hooksPath records the directory core.hooksPath names, relative to the
// worktree's top as git takes it.
func (s *scanner) hooksPath(v, worktree string) {
	p := s.expand(v, worktree)
	if p == "" {
		return
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		s.add(p, HookDir) // the link itself: replacing it moves the hooks
		p = r
	}
	s.hookDir(p)
}

// expand makes a path from git's configuration absolute: "~/" against the
// home directory, a relative path against base. "" when it cannot.
func (s *scanner) expand(v, base string) string {
	switch {
	case v == "":
		return ""
	case v == "~" || strings.HasPrefix(v, "~/"):
		if s.opt.Home == "" {
			return ""
		}
		return filepath.Join(s.opt.Home, strings.TrimPrefix(v, "~"))
	case filepath.IsAbs(v):
		return filepath.Clean(v)
	case base == "":
		return ""
	}
	return filepath.Join(base, v)
}

// config reads a configuration file, follows its includes (whatever their
// condition: a superset of what git reads) and passes the other settings
// to visit.
func (s *scanner) config(f string, depth int, visit func(setting)) {
	b, err := readRegular(f, maxConfig)
	if err != nil {
		// A link to a configuration file: git follows it.
		if t, terr := filepath.EvalSymlinks(f); terr == nil && t != f {
			b, err = readRegular(t, maxConfig)
		}
		if err != nil {
			return
		}
	}
	if !slices.Contains(s.l.configs, f) {
		s.l.configs = append(s.l.configs, f)
	}
	for _, st := range readConfig(b) {
		if st.key == "path" && (st.section == "include" || st.section == "includeif") {
			t := s.expand(st.value, filepath.Dir(f))
			if t == "" {
				continue
			}
			s.add(t, Config)
			if r, err := filepath.EvalSymlinks(t); err == nil {
				s.add(r, Config)
			}
			if depth < maxIncludes {
				s.config(t, depth+1, visit)
			}
			continue
		}
		visit(st)
	}
}

// modules scans the submodule git directories below dir; a submodule's name
// may hold slashes, so directories that are not git directories are
// searched a few levels down.
func (s *scanner) modules(dir string, depth int) {
	if depth > maxDepth {
		return
	}
	for _, p := range s.subdirs(dir) {
		if _, err := os.Lstat(filepath.Join(p, "HEAD")); err == nil {
			s.gitdir(p, "")
		} else {
			s.modules(p, depth+1)
		}
	}
}

// worktrees scans the linked worktrees of a repository: their git
// directories and, when beneath the root, their .git files.
func (s *scanner) worktrees(dir string) {
	for _, d := range s.subdirs(dir) {
		worktree := ""
		if b, err := readRegular(filepath.Join(d, "gitdir"), maxSmallFile); err == nil {
			if dotgit := resolveFrom(d, gitPath(b)); dotgit != "" {
				worktree = filepath.Dir(dotgit)
				s.add(dotgit, Pointer)
			}
		}
		s.gitdir(d, worktree)
	}
}

// subdirs lists the directories in dir (not links to directories).
func (s *scanner) subdirs(dir string) []string {
	if s.listed++; s.listed > maxListed {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
