package eval

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/sandbox"
)

// prepareWorkdir makes work the task's starting state: a clone of its
// repository at its commit, then its fixture copied over. env is the
// environment git starts from (nil: PATH alone).
func prepareWorkdir(ctx context.Context, t *Task, work string, env []string) error {
	if t.Repo != "" {
		if err := git(ctx, env, "", "clone", "--quiet", "--no-hardlinks", "--", t.Repo, work); err != nil {
			return err
		}
		if t.Commit != "" {
			if err := git(ctx, env, work, "checkout", "--quiet", "--detach", t.Commit); err != nil {
				return err
			}
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if t.Fixture == "" {
		return nil
	}
	if err := copyTree(t.Fixture, work); err != nil {
		return fmt.Errorf("copying the fixture: %w", err)
	}
	return nil
}

// gitSafe is the configuration git clones and checks out a task's
// repository with: it runs outside the kernel sandbox, so nothing a
// configuration names may run. Hooks (a hooks path, a template's hooks)
// are off and no system or global configuration is read (GIT_CONFIG_*
// below), which leaves no definition for a filter or another driver a
// repository's .gitattributes names: a clone's own configuration is
// fresh, not the source repository's. Transports that run a command
// (ext::) are refused.
var gitSafe = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "protocol.ext.allow=never",
	"-c", "protocol.fd.allow=never",
	"-c", "credential.helper=",
}

// gitEnv is env without git's own variables (one could name another
// repository or configuration), reading no configuration but the
// repository's and never prompting.
func gitEnv(env []string) []string {
	out := []string{}
	for _, kv := range sandbox.BaseEnv(env) {
		if !strings.HasPrefix(kv, "GIT_") {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
}

func git(ctx context.Context, env []string, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", append(slices.Clone(gitSafe), args...)...)
	cmd.Dir = dir
	cmd.Env = gitEnv(env)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// copyTree copies the directory src into dst (created if missing): regular
// files with their permission bits, directories and symbolic links as
// links. Other files (sockets, devices) are refused.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(path, target, info.Mode().Perm())
		}
		return fmt.Errorf("%s is not a regular file, directory or link", rel)
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
