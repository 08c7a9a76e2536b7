// Package sandbox confines the processes the model causes to run (bash
// commands, and any helper command a program routes through it) with the
// kernel rather than with a parser: on Linux, a Landlock domain decides what
// the process may read, write and connect to, and namespaces end whatever it
// leaves behind. A command refused by the sandbox fails with EACCES at the
// system call, whatever the command line looked like.
//
// Two policies exist. ReadOnly (Plan Mode) may read and execute the workdir,
// the system directories and the toolchains found at start, and write only
// /dev/null and a private scratch directory that is deleted after the call;
// it has no network. WorkspaceWrite (Default and AutoEdit) may read
// everything but the denied paths and write the workdir, the scratch
// directory and an optional cache directory; it has no network unless
// WithNetwork allows it. Denied paths (credentials in the home directory,
// the harness's own data) are never readable under either policy, even when
// the workdir contains them.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/internal/lib/gitguard"
)

// Policy is what a confined process may do.
type Policy int

// The policies.
const (
	// ReadOnly reads the workdir and the system, writes nothing that
	// survives the call, and has no network.
	ReadOnly Policy = iota + 1
	// WorkspaceWrite reads everything but the denied paths and writes the
	// workdir; no network unless WithNetwork.
	WorkspaceWrite
)

func (p Policy) String() string {
	switch p {
	case ReadOnly:
		return "read-only"
	case WorkspaceWrite:
		return "workspace-write"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ErrUnavailable is returned by Start when the kernel cannot enforce the
// sandbox; Support says why.
var ErrUnavailable = errors.New("the kernel sandbox is not available on this system")

// Sandbox confines commands to a workdir. It is immutable after New and safe
// for concurrent use.
type Sandbox struct {
	workdir  string
	deny     []string // absolute, symlink-resolved; never readable
	read     []string // extra read+execute paths (toolchains, config)
	cacheDir string   // persistent writable cache under WorkspaceWrite, "" for none
	network  bool
	keepEnv  map[string]bool
	hideEnv  map[string]bool
	support  Support
	gitOpt   gitguard.Options // WithUserGitConfig
	git      *gitRecord       // the git guard's record, shared by running commands
	limits   Limits
	// noNamespaces starts commands as if the kernel refused user
	// namespaces (WithNamespaces(false)).
	noNamespaces bool
}

// Option configures New.
type Option func(*Sandbox)

// WithDeny adds paths no confined process may read or write, even when they
// lie inside the workdir or another readable tree: credentials and the
// harness's own data directory.
func WithDeny(paths ...string) Option {
	return func(s *Sandbox) { s.deny = append(s.deny, paths...) }
}

// WithReadPaths adds directories a confined process may read and execute
// under both policies, such as toolchains outside the system directories.
func WithReadPaths(paths ...string) Option {
	return func(s *Sandbox) { s.read = append(s.read, paths...) }
}

// WithToolchains adds the toolchain directories found on this machine
// (DetectToolchains) to the read paths, for a program that wants compilers
// and interpreters installed in the home directory to work under ReadOnly.
func WithToolchains(home string, path string) Option {
	return func(s *Sandbox) { s.read = append(s.read, DetectToolchains(home, path)...) }
}

// WithCacheDir gives WorkspaceWrite commands a persistent writable cache
// directory (GOCACHE, XDG_CACHE_HOME, npm and pip caches point into it), so
// builds stay incremental without letting the agent write the user's own
// caches, which later unconfined builds would trust.
func WithCacheDir(dir string) Option {
	return func(s *Sandbox) { s.cacheDir = dir }
}

// WithNetwork lets WorkspaceWrite commands use the network. ReadOnly never
// has it.
func WithNetwork(allow bool) Option {
	return func(s *Sandbox) { s.network = allow }
}

// WithKeepEnv keeps environment variables that ScrubEnv would drop.
func WithKeepEnv(names ...string) Option {
	return func(s *Sandbox) {
		for _, n := range names {
			s.keepEnv[n] = true
		}
	}
}

// WithHideEnv drops more environment variables, such as the provider key
// variables a configuration names.
func WithHideEnv(names ...string) Option {
	return func(s *Sandbox) {
		for _, n := range names {
			if n != "" {
				s.hideEnv[n] = true
			}
		}
	}
}

// WithSupport overrides the kernel probe; tests use it to simulate a
// machine without Landlock.
func WithSupport(sup Support) Option {
	return func(s *Sandbox) { s.support = sup }
}

// WithNamespaces(false) confines commands without namespaces even where
// the kernel offers them: the regime of a system that refuses user
// namespaces (RegimeNoNamespaces), for tests and for comparing the two.
func WithNamespaces(use bool) Option {
	return func(s *Sandbox) { s.noNamespaces = !use }
}

// New returns a sandbox for workdir, which must be an existing directory.
func New(workdir string, opts ...Option) (*Sandbox, error) {
	abs, err := filepath.Abs(workdir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workdir %q: %w", workdir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workdir %q: %w", workdir, err)
	}
	s := &Sandbox{workdir: real, keepEnv: map[string]bool{}, hideEnv: map[string]bool{}, support: Probe(), git: &gitRecord{}, limits: DefaultLimits()}
	for _, o := range opts {
		o(s)
	}
	s.deny = canonical(s.deny)
	s.read = canonical(s.read)
	if s.cacheDir != "" {
		if err := os.MkdirAll(s.cacheDir, 0o700); err != nil {
			return nil, fmt.Errorf("sandbox: cache directory: %w", err)
		}
		if s.cacheDir, err = filepath.EvalSymlinks(s.cacheDir); err != nil {
			return nil, fmt.Errorf("sandbox: cache directory: %w", err)
		}
	}
	return s, nil
}

// Workdir returns the absolute, symlink-resolved workdir.
func (s *Sandbox) Workdir() string { return s.workdir }

// Support reports whether this sandbox can confine anything.
func (s *Sandbox) Support() Support { return s.support }

// Limits returns the resource limits of the sandbox's commands.
func (s *Sandbox) Limits() Limits { return s.limits }

// Regime reports how this sandbox confines commands on this machine. The
// first call may start a process to ask the kernel (ProbeNamespaces).
func (s *Sandbox) Regime() Regime {
	switch {
	case !s.support.Available:
		return RegimeNone
	case s.noNamespaces:
		return RegimeNoNamespaces
	}
	if ok, _ := ProbeNamespaces(); ok {
		return RegimeNamespaces
	}
	return RegimeNoNamespaces
}

// Network reports whether WorkspaceWrite commands may use the network.
func (s *Sandbox) Network() bool { return s.network }

// Denied returns the paths no confined process may open.
func (s *Sandbox) Denied() []string { return slices.Clone(s.deny) }

// ReadPaths returns the extra read+execute paths.
func (s *Sandbox) ReadPaths() []string { return slices.Clone(s.read) }

// canonical makes paths absolute, resolves their symlinks when they exist
// (Landlock checks the real location, so the rule must name it), and
// removes duplicates. Paths that do not exist are kept as given: a deny
// entry for a file created later must still not be granted.
func canonical(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		out = append(out, abs)
		if r, err := filepath.EvalSymlinks(abs); err == nil && r != abs {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// within reports whether path is dir or lies beneath it.
func within(dir, path string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}
