package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/harness9/harness9/internal/lib/gitguard"
	"github.com/harness9/harness9/internal/lib/pathfold"
)

// DataDirName is the name of harness9's data directory, the one spelling of
// it: <workdir>/.harness9 holds a project's configuration, skills, commands,
// agents, plans and task directories, and ~/.harness9 is the user's data
// directory (sessions, settings) unless the program chooses another.
const DataDirName = ".harness9"

// deniedInHome are the entries of the user's home directory no file the
// harness opens for the model may come from, even when the workspace
// contains the home directory: they hold credentials (or, for .harness9,
// the harness's own sessions and settings), and a model that reads them can
// leak them into a transcript.
var deniedInHome = []string{
	".ssh", ".aws", ".gnupg", ".kube", ".netrc",
	filepath.Join(".config", "gcloud"), ".azure", ".docker", DataDirName,
}

// maxSymlinks bounds symlink expansion during Resolve, as the kernel does
// (ELOOP), so a link cycle is an error instead of an endless loop.
const maxSymlinks = 255

// ErrNotRegular is wrapped by the errors of Open and WriteFile for a named
// pipe, socket or device: such a file is refused before it is opened, since
// opening a FIFO blocks until a writer comes and opening a device can act.
var ErrNotRegular = errors.New("not a regular file")

// Workspace is the sandbox every file the harness opens for the model goes
// through: the file tools, AGENTS.md, skills. Paths are taken relative to
// the root and opened through an os.Root, so the kernel resolves them:
// symlinks are followed beneath the root, ".." is applied after them, and
// nothing outside the root can be reached, for reads as well as writes. The
// home deny list (~/.ssh, ~/.aws ...) is refused even when the root contains
// the home directory. Named pipes, sockets and devices are refused before
// they are opened. A Workspace is safe for concurrent use; it keeps a
// descriptor of its root open for its lifetime.
type Workspace struct {
	root string // absolute, symlinks resolved: for display and containment checks
	// given is the root as given, made absolute, when it differs from root
	// (a path through a symlink): absolute paths may use either spelling.
	given string
	fs    *os.Root
	// deny holds each denied location twice: lexically under the home
	// directory and with its symlinks resolved, so neither a path spelled
	// through the home directory nor one through a link's target gets in.
	deny []string
	git  gitguard.Options // what the git guard needs to know of the user's configuration
	// editor, when set, holds the text of files the user has open: the
	// file tools read and write through it (ReadText, WriteText).
	editor Editor
}

// WorkspaceOption configures a Workspace.
type WorkspaceOption func(*workspaceConfig)

type workspaceConfig struct {
	home      string
	denied    []string
	gitConfig []string
	editor    Editor
}

// WithHome sets the home directory the deny list (~/.ssh, ~/.aws, ~/.gnupg,
// ~/.kube, ~/.netrc, ~/.config/gcloud, ~/.azure, ~/.docker, ~/.harness9) is anchored
// at. Without it (or with "") there is no home deny list, only the
// locations given with WithDenied: a program whose workspace may contain
// the user's home directory passes it (harness9's CLI passes
// the user's home directory). The library never looks the home directory up itself.
func WithHome(dir string) WorkspaceOption {
	return func(c *workspaceConfig) { c.home = dir }
}

// WithDenied adds directories (or files) the workspace refuses, like the
// home deny list: the harness's own data directory when it is not
// ~/.harness9, for instance. Empty entries are ignored.
func WithDenied(paths ...string) WorkspaceOption {
	return func(c *workspaceConfig) { c.denied = append(c.denied, paths...) }
}

// NewWorkspace returns a sandbox rooted at root, which must be an existing
// directory. The root is made absolute and its symlinks are resolved, so
// containment checks compare real locations.
func NewWorkspace(root string, opts ...WorkspaceOption) (*Workspace, error) {
	var cfg workspaceConfig
	for _, o := range opts {
		o(&cfg)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	fsroot, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	w := &Workspace{root: real, fs: fsroot, git: gitguard.Options{Home: cfg.home, Global: cfg.gitConfig}, editor: cfg.editor}
	if abs != real {
		w.given = abs
	}
	var denied []string
	if cfg.home != "" {
		home, err := filepath.Abs(cfg.home)
		if err != nil {
			return nil, fmt.Errorf("home directory %q: %w", cfg.home, err)
		}
		for _, name := range deniedInHome {
			denied = append(denied, filepath.Join(home, name))
		}
	}
	for _, d := range cfg.denied {
		if d == "" {
			continue
		}
		a, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("denied location %q: %w", d, err)
		}
		denied = append(denied, a)
	}
	for _, lexical := range denied {
		w.deny = append(w.deny, lexical)
		if r, err := resolveLinks(lexical); err == nil && r != lexical {
			w.deny = append(w.deny, r)
		}
	}
	return w, nil
}

// Root returns the absolute, symlink-resolved workspace root.
func (w *Workspace) Root() string { return w.root }

// Resolve turns a path given by the model into the absolute path it leads
// to inside the workspace, the way the kernel would resolve it: symlinks
// are followed (also in the existing prefix of a path that does not exist
// yet) and ".." is applied to where a link led, never to its name. It fails
// when the path leads outside the root or into the deny list. Resolve is for
// display and for checks (the bash gate, permission rules); to open a file,
// use Open, Stat or WriteFile, which go through the kernel and cannot be
// raced. The errors are worded for the model.
func (w *Workspace) Resolve(path string) (string, error) {
	_, resolved, err := w.locate(path)
	return resolved, err
}

// locate checks path and returns it relative to the root, as given (for
// os.Root to resolve), and the absolute location it resolves to now.
func (w *Workspace) locate(path string) (rel, resolved string, err error) {
	if strings.IndexByte(path, 0) >= 0 {
		return "", "", fmt.Errorf("path %q contains a NUL byte", path)
	}
	rel, elsewhere := path, false
	if filepath.IsAbs(path) {
		var ok bool
		if rel, ok = cutRoot(w.root, path); !ok {
			rel, ok = cutRoot(w.given, path)
			elsewhere = !ok
		}
	}
	if rel == "" {
		rel = "."
	}
	joined := w.root + string(filepath.Separator) + rel
	if elsewhere {
		joined = path // another spelling (a link to the root?) or outside
	}
	// No filepath.Clean here: "link/.." must climb from where link leads.
	resolved, err = resolveLinks(joined)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path it names may be a link's target outside the root
		}
		return "", "", fmt.Errorf("cannot resolve path %q: %w", path, err)
	}
	if !within(w.root, resolved) {
		return "", "", refusef("path %q is outside the workspace %s; use a path inside it", path, w.root)
	}
	if d, ok := w.denied(resolved); ok {
		return "", "", w.deniedError(path, d)
	}
	if elsewhere {
		rel = w.rel(resolved)
	}
	return rel, resolved, nil
}

// cutRoot returns path below root, unchanged (not cleaned), when path
// starts with root as whole components.
func cutRoot(root, path string) (string, bool) {
	if root == "" {
		return "", false
	}
	if path == root {
		return ".", true
	}
	if root == string(filepath.Separator) {
		return strings.TrimLeft(path, root), true
	}
	rest, ok := strings.CutPrefix(path, root)
	if !ok || rest[0] != filepath.Separator {
		return "", false
	}
	return strings.TrimLeft(rest, string(filepath.Separator)), true // "" is the root
}

// rel is abs (inside the root) relative to the root, "." for the root.
func (w *Workspace) rel(abs string) string {
	r, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return r
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
// directory), is in the deny list. Tools that walk directory trees use it
// to skip ~/.ssh and the like when the workspace contains the home
// directory.
func (w *Workspace) Denied(abs string) bool {
	_, ok := w.denied(abs)
	return ok
}

func (w *Workspace) denied(p string) (string, bool) {
	for _, d := range w.deny {
		// Every spelling a case-insensitive file system takes for it.
		if pathfold.Within(d, p) {
			return d, true
		}
	}
	return "", false
}

// deniedError refuses a path in a denied location, named relative to the
// root (a refusal never names a path outside the workdir).
func (w *Workspace) deniedError(path, location string) error {
	where := "a location"
	if rel := w.Rel(location); !filepath.IsAbs(rel) {
		where = rel
	}
	return refusef("path %q is in %s, which holds credentials and is off limits to tools", path, where)
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

// resolveLinks resolves every symlink of the absolute path p, one component
// at a time, the way the kernel would: ".." applies to where the path got
// so far, links included, so p must not be cleaned first. Unlike
// filepath.EvalSymlinks it succeeds for paths that do not exist: missing
// components are appended lexically. A dangling symlink is followed to its
// target, so a file created "through" it is judged by where it would really
// land.
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
