package tool

import (
	"path/filepath"

	"github.com/harness9/harness9/internal/lib/gitguard"
)

// WithGitConfig names the user's global and system git configuration files
// (~/.gitconfig, ~/.config/git/config, /etc/gitconfig): a core.hooksPath
// or an include they set that leads into the workspace is protected like
// .git itself. The home directory (WithHome) expands "~/" in them.
func WithGitConfig(files ...string) WorkspaceOption {
	return func(c *workspaceConfig) { c.gitConfig = append(c.gitConfig, files...) }
}

// refuseGit fails for a path git reads to decide what to run — anything
// named .git or inside a git directory, a hooks directory (also one
// core.hooksPath names), a configuration file git includes — found as git
// would find it now (gitguard). git runs what those name outside every
// sandbox when the user next runs it, so no tool writes there: not
// write_file, edit_file, undo, nor any future writer, since they all write
// through the Workspace. abs is the absolute location the write lands on,
// path the model's name for it.
func (w *Workspace) refuseGit(path, abs string) error {
	what, ok := gitguard.Scan(w.root, w.git).Protects(filepath.Clean(abs))
	if !ok {
		return nil
	}
	return refusef("%q is %s: git runs what its configuration and hooks name outside the sandbox the next "+
		"time the user runs git, so harness9's tools do not change them. If the change is really needed, "+
		"tell the user what to change and why, and let them do it", path, what)
}
