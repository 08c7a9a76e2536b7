package sandbox

import (
	"sync"

	"github.com/harness9/harness9/internal/lib/gitguard"
)

// Landlock cannot keep one subtree read-only inside a writable workdir
// without taking away the right to create files in the workdir itself, so
// what git would later run unconfined on the user's behalf is guarded
// differently: its state is recorded before a WorkspaceWrite command and
// judged after it, when every process of the command has ended. A hook, a
// core.fsmonitor, a .git replaced by a file or link leading to another
// configuration, a commondir, a submodule's .git redirected or a new
// gitlink with a .git of its own would otherwise run outside the sandbox the
// next time the user runs git (gitguard has the whole list and the rules of
// what may change: a harmless configuration, a new repository, a sample
// hook).
//
// Commands may run at the same time (sub-agents): they share one record,
// taken when the first of them starts, so that one command's plant cannot
// become part of another's "before". A long-lived process (LongLived) has
// its own.

// WithUserGitConfig tells the git guard where the user's own git
// configuration is: the home directory ("~/" in core.hooksPath and
// includes) and the global and system configuration files (~/.gitconfig,
// ~/.config/git/config, /etc/gitconfig), whose core.hooksPath or includes
// may lead into the workdir.
func WithUserGitConfig(home string, files ...string) Option {
	return func(s *Sandbox) {
		s.gitOpt.Home = home
		s.gitOpt.Global = append(s.gitOpt.Global, files...)
	}
}

// gitRecord is the record the running WorkspaceWrite commands share.
type gitRecord struct {
	mu     sync.Mutex
	active int
	snap   *gitguard.Snapshot
}

// gitGuard is one command's hold on the record.
type gitGuard struct {
	rec *gitRecord
}

// LongLived marks a process that outlives the calls around it (an MCP
// server): its git record is its own, taken when it starts and judged when
// it ends, so that it does not hold the record the model's commands share
// for the whole session (which would undo, after every command, a change
// the user made to git's configuration meanwhile).
func LongLived() StartOption {
	return func(o *startOptions) { o.longLived = true }
}

// guardGit records git's state unless a command that is still running
// already has (a long-lived process gets a record of its own).
func (s *Sandbox) guardGit(longLived bool) *gitGuard {
	rec := s.git
	if longLived {
		rec = &gitRecord{}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.active == 0 {
		rec.snap = gitguard.Take(s.workdir, s.gitOpt)
	}
	rec.active++
	return &gitGuard{rec: rec}
}

// restore undoes what the command (or another one running since the record
// was taken) changed and was not allowed to, and returns what it undid, as
// paths relative to the workdir with what was done.
func (g *gitGuard) restore() []string {
	if g == nil || g.rec == nil {
		return nil
	}
	rec := g.rec
	g.rec = nil // Cleanup may be called twice
	rec.mu.Lock()
	defer rec.mu.Unlock()
	fixes := rec.snap.Restore()
	if rec.active--; rec.active == 0 {
		rec.snap = nil
	}
	out := make([]string, len(fixes))
	for i, f := range fixes {
		out[i] = f.String()
	}
	return out
}
