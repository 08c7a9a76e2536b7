package sandbox

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Landlock cannot keep one subtree read-only inside a writable workdir
// without taking away the right to create files in the workdir itself, so
// what git would later run unconfined on the user's behalf is guarded
// differently: its state is recorded before a WorkspaceWrite command and
// restored after it, when every process of the command has ended. A hook
// planted in .git/hooks, or a core.fsmonitor added to .git/config or to a
// submodule's or worktree's configuration, would otherwise run outside the
// sandbox the next time the user runs git.

// gitGuard is the recorded state of the protected git files.
type gitGuard struct {
	dir   string            // <workdir>/.git, when it is a directory
	files map[string][]byte // protected path → content
}

// skippedInGit are the directories of a git directory that hold no
// configuration or hook and may be large.
var skippedInGit = []string{"objects", "refs", "logs", "lfs", "rr-cache"}

// protectedGitFile reports whether rel (relative to .git) is configuration
// or a hook, at any depth (submodules live in .git/modules/NAME/).
func protectedGitFile(rel string) bool {
	base := filepath.Base(rel)
	if base == "config" || base == "config.worktree" {
		return true
	}
	for d := filepath.Dir(rel); d != "." && d != "/"; d = filepath.Dir(d) {
		if filepath.Base(d) == "hooks" {
			return true
		}
	}
	return false
}

// scan returns the protected files beneath dir, with their contents; a
// protected path that is not a regular file maps to nil.
func scanGit(dir string) map[string][]byte {
	files := map[string][]byte{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != dir && slices.Contains(skippedInGit, d.Name()) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() || !protectedGitFile(rel) {
			return nil
		}
		b, err := readRegular(p)
		if err != nil {
			b = nil
		}
		files[p] = b
		return nil
	})
	return files
}

func guardGit(workdir string) *gitGuard {
	dir := filepath.Join(workdir, ".git")
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	return &gitGuard{dir: dir, files: scanGit(dir)}
}

// restore puts the recorded state back and returns the paths it had to
// repair: changed files get their content back, new ones are removed,
// deleted ones are written again.
func (g *gitGuard) restore() []string {
	if g == nil {
		return nil
	}
	var fixed []string
	now := scanGit(g.dir)
	for p, body := range now {
		old, known := g.files[p]
		if known && old != nil && body != nil && bytes.Equal(old, body) {
			continue
		}
		if known && old == nil && body == nil {
			continue // was not a regular file before either; leave it
		}
		_ = os.RemoveAll(p)
		if known && old != nil {
			_ = os.WriteFile(p, old, 0o644)
		}
		fixed = append(fixed, p)
	}
	for p, old := range g.files {
		if _, still := now[p]; still || old == nil {
			continue
		}
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if os.WriteFile(p, old, 0o755) == nil {
			fixed = append(fixed, p)
		}
	}
	slices.Sort(fixed)
	return fixed
}

// readRegular reads a regular file, refusing links and special files.
func readRegular(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return os.ReadFile(p)
}
