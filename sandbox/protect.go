package sandbox

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Landlock cannot keep one subtree read-only inside a writable workdir
// without taking away the right to create files in the workdir itself, so
// what git would later run unconfined on the user's behalf is guarded
// differently: its state is recorded before a WorkspaceWrite command and
// restored after it, when every process of the command has ended. A hook
// planted in .git/hooks or a core.fsmonitor added to .git/config would
// otherwise run outside the sandbox the next time the user runs git.

// gitGuard is the recorded state of the protected git files.
type gitGuard struct {
	dir    string            // <workdir>/.git, when it is a directory
	config []byte            // .git/config, nil when absent
	hooks  map[string][]byte // .git/hooks/<name> → content
	hasCfg bool
}

func guardGit(workdir string) *gitGuard {
	dir := filepath.Join(workdir, ".git")
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	g := &gitGuard{dir: dir, hooks: map[string][]byte{}}
	if b, err := readRegular(filepath.Join(dir, "config")); err == nil {
		g.config, g.hasCfg = b, true
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "hooks"))
	for _, e := range entries {
		if b, err := readRegular(filepath.Join(dir, "hooks", e.Name())); err == nil {
			g.hooks[e.Name()] = b
		}
	}
	return g
}

// restore puts the recorded state back and returns the paths it had to
// repair.
func (g *gitGuard) restore() []string {
	if g == nil {
		return nil
	}
	var fixed []string
	cfg := filepath.Join(g.dir, "config")
	if b, err := readRegular(cfg); g.hasCfg && (err != nil || !bytes.Equal(b, g.config)) {
		_ = os.RemoveAll(cfg)
		if os.WriteFile(cfg, g.config, 0o644) == nil {
			fixed = append(fixed, cfg)
		}
	}
	hooks := filepath.Join(g.dir, "hooks")
	if fi, err := os.Lstat(hooks); err == nil && !fi.IsDir() {
		_ = os.Remove(hooks)
		fixed = append(fixed, hooks)
	}
	entries, _ := os.ReadDir(hooks)
	for _, e := range entries {
		p := filepath.Join(hooks, e.Name())
		old, known := g.hooks[e.Name()]
		if b, err := readRegular(p); known && err == nil && bytes.Equal(b, old) {
			continue
		}
		_ = os.RemoveAll(p)
		fixed = append(fixed, p)
	}
	for name, body := range g.hooks {
		p := filepath.Join(hooks, name)
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			_ = os.MkdirAll(hooks, 0o755)
			if os.WriteFile(p, body, 0o755) == nil {
				fixed = append(fixed, p)
			}
		}
	}
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
