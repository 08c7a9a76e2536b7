package sandbox

import (
	"os"
	"path/filepath"
	"slices"
)

// grant is one path a policy opens, with the rights it gets.
type grant struct {
	path  string
	dir   bool // a directory hierarchy, not a single file
	write bool // read, write and create; otherwise read and execute
}

// devFiles are the device files every confined process may read; /dev/null
// is writable too. The rest of /dev (disks, memory, terminals) is never
// granted: a raw disk read would bypass every path rule.
var devFiles = []string{"/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// grants computes what policy p may open, with scratch as the call's
// private scratch directory. The denied paths are carved out of every
// grant (Landlock can only allow, so a tree that contains a denied path is
// granted entry by entry around it).
func (s *Sandbox) grants(p Policy, scratch string) []grant {
	var out []grant
	add := func(path string, write bool, deny []string) {
		out = append(out, expand(path, write, deny)...)
	}
	switch p {
	case ReadOnly:
		for _, d := range systemDirs {
			add(d, false, s.deny)
		}
		for _, d := range s.read {
			add(d, false, s.deny)
		}
		add(s.workdir, false, s.deny)
	case WorkspaceWrite:
		// Everything but /dev, whose disks and memory would bypass the path
		// rules, is readable; the workdir is writable.
		out = append(out, expand("/", false, append(slices.Clone(s.deny), "/dev"))...)
		add(s.workdir, true, s.deny)
		if s.cacheDir != "" {
			// The cache lives in the harness's data directory, which is
			// denied as a whole; this one directory is the exception.
			add(s.cacheDir, true, denyInside(s.cacheDir, s.deny))
		}
	}
	out = append(out, grant{path: scratch, dir: true, write: true}, grant{path: "/dev/null", write: true})
	for _, f := range devFiles {
		if _, err := os.Stat(f); err == nil {
			out = append(out, grant{path: f})
		}
	}
	return out
}

// denyInside returns the denied paths strictly beneath dir.
func denyInside(dir string, deny []string) []string {
	var out []string
	for _, d := range deny {
		if d != dir && within(dir, d) {
			out = append(out, d)
		}
	}
	return out
}

// expand grants root minus the denied paths. A root with no denied path
// beneath it is one grant; otherwise each entry of the directory is granted
// on its own, recursing into the entries that lead to a denied path.
// Symbolic links are skipped: Landlock checks the location a link resolves
// to, so a link grants nothing by itself and granting it would grant its
// target. Missing roots are skipped.
func expand(root string, write bool, deny []string) []grant {
	fi, err := os.Lstat(root)
	if err != nil || fi.Mode()&os.ModeSymlink != 0 {
		if err == nil {
			// A system directory such as /lib may be a link (usrmerge):
			// grant its target, which is what any access reaches.
			if real, err := filepath.EvalSymlinks(root); err == nil {
				return expand(real, write, deny)
			}
		}
		return nil
	}
	for _, d := range deny {
		if within(d, root) {
			return nil
		}
	}
	if !fi.IsDir() {
		return []grant{{path: root, write: write}}
	}
	if len(denyInside(root, deny)) == 0 {
		return []grant{{path: root, dir: true, write: write}}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []grant
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		out = append(out, expand(filepath.Join(root, e.Name()), write, deny)...)
	}
	return out
}
