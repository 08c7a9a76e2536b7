package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// deniedInHome are the entries of the user's home directory no file tool may
// touch, even when the workspace contains the home directory: they hold
// credentials, and a model that reads them can leak them into a transcript.
var deniedInHome = []string{".ssh", ".aws", ".gnupg", ".kube", ".netrc"}

// maxSymlinks bounds symlink expansion during Resolve, as the kernel does
// (ELOOP), so a link cycle is an error instead of an endless loop.
const maxSymlinks = 255

// Workspace is the sandbox every file tool resolves paths through. A path is
// taken relative to the root, cleaned and symlink-resolved; the result must
// stay inside the root and outside the home deny list. Reads are sandboxed as
// well as writes: read-only does not mean the model may read anything on the
// machine. A Workspace is immutable and safe for concurrent use.
type Workspace struct {
	root string
	// deny holds each denied location twice: lexically under the home
	// directory and with its symlinks resolved, so neither a path spelled
	// through the home directory nor one through a link's target gets in.
	deny []string
}

// WorkspaceOption configures a Workspace.
type WorkspaceOption func(*workspaceConfig)

type workspaceConfig struct {
	home    string
	homeSet bool
}

// WithHome sets the home directory the deny list (~/.ssh, ~/.aws, ~/.gnupg,
// ~/.kube, ~/.netrc) is anchored at. The default is os.UserHomeDir; an empty
// dir disables the deny list.
func WithHome(dir string) WorkspaceOption {
	return func(c *workspaceConfig) { c.home, c.homeSet = dir, true }
}

// NewWorkspace returns a sandbox rooted at root, which must be an existing
// directory. The root is made absolute and its symlinks are resolved, so
// containment checks compare real locations.
func NewWorkspace(root string, opts ...WorkspaceOption) (*Workspace, error) {
	var cfg workspaceConfig
	for _, o := range opts {
		o(&cfg)
	}
	if !cfg.homeSet {
		cfg.home, _ = os.UserHomeDir() // no home: no deny list, nothing to protect
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace root %q is not a directory", root)
	}
	w := &Workspace{root: real}
	if cfg.home != "" {
		home, err := filepath.Abs(cfg.home)
		if err != nil {
			return nil, fmt.Errorf("home directory %q: %w", cfg.home, err)
		}
		for _, name := range deniedInHome {
			lexical := filepath.Join(home, name)
			w.deny = append(w.deny, lexical)
			if r, err := resolveLinks(lexical); err == nil && r != lexical {
				w.deny = append(w.deny, r)
			}
		}
	}
	return w, nil
}

// Root returns the absolute, symlink-resolved workspace root.
func (w *Workspace) Root() string { return w.root }

// Resolve turns a path given by the model into an absolute path inside the
// workspace. Relative paths are taken from the root; absolute paths are
// accepted only if they lead inside it. Symlinks are resolved, including
// those in the existing prefix of a path that does not exist yet (a file
// about to be created), so the returned path contains no symlink that exists
// now and tools should operate on it rather than on the original. The errors
// are worded for the model.
func (w *Workspace) Resolve(path string) (string, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return "", fmt.Errorf("path %q contains a NUL byte", path)
	}
	joined := path
	if !filepath.IsAbs(joined) {
		joined = filepath.Join(w.root, joined)
	}
	joined = filepath.Clean(joined)
	if d, ok := w.denied(joined); ok {
		return "", deniedError(path, d)
	}
	resolved, err := resolveLinks(joined)
	if err != nil {
		return "", fmt.Errorf("cannot resolve path %q: %w", path, err)
	}
	if !within(w.root, resolved) {
		return "", fmt.Errorf("path %q is outside the workspace %s; use a path inside it", path, w.root)
	}
	if d, ok := w.denied(resolved); ok {
		return "", deniedError(path, d)
	}
	return resolved, nil
}

// Rel returns abs relative to the root for display, or abs unchanged if it
// is not inside the root. The root itself is ".".
func (w *Workspace) Rel(abs string) string {
	if !filepath.IsAbs(abs) {
		return abs
	}
	rel, err := filepath.Rel(w.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}

// Denied reports whether abs, a clean absolute path with its symlinks
// already resolved (as Resolve returns, or as found by walking a resolved
// directory), is in the home deny list. Tools that walk directory trees use
// it to skip ~/.ssh and the like when the workspace contains the home
// directory.
func (w *Workspace) Denied(abs string) bool {
	_, ok := w.denied(abs)
	return ok
}

func (w *Workspace) denied(p string) (string, bool) {
	for _, d := range w.deny {
		if within(d, p) {
			return d, true
		}
	}
	return "", false
}

func deniedError(path, location string) error {
	return fmt.Errorf("path %q is in %s, which holds credentials and is off limits to tools", path, location)
}

// within reports whether p is dir or below it. Both must be clean and absolute.
func within(dir, p string) bool {
	if p == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, dir) && p[len(dir)] == filepath.Separator
}

// resolveLinks resolves every symlink of the clean absolute path p, one
// component at a time, the way the kernel would. Unlike filepath.EvalSymlinks
// it succeeds for paths that do not exist: missing components are appended
// lexically. A dangling symlink is followed to its target,
// so a file created "through" it is judged by where it would really land.
func resolveLinks(p string) (string, error) {
	sep := string(filepath.Separator)
	resolved := sep
	todo := strings.Split(strings.TrimPrefix(p, sep), sep)
	links := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		// Every component is looked at, even below a missing one: a ".."
		// from a link target can climb back to existing ground, where a
		// symlink must be followed again.
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				resolved = next
				continue
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxSymlinks {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = sep
		}
		todo = append(strings.Split(target, sep), todo...)
	}
	return resolved, nil
}
