package eval

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// prepareWorkdir makes work the task's starting state: a clone of its
// repository at its commit, then its fixture copied over.
func prepareWorkdir(ctx context.Context, t *Task, work string) error {
	if t.Repo != "" {
		if err := git(ctx, "", "clone", "--quiet", "--no-hardlinks", "--", t.Repo, work); err != nil {
			return err
		}
		if t.Commit != "" {
			if err := git(ctx, work, "checkout", "--quiet", "--detach", t.Commit); err != nil {
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

func git(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
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
