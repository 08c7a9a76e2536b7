package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// lstatName resolves path's parent directory the way locate does (links
// followed beneath the root, deny list applied) and returns the name of
// path's last component beneath it, relative to the root, unfollowed.
func (w *Workspace) lstatName(path string) (string, error) {
	dir, base := filepath.Split(path)
	if base == "" || base == "." || base == ".." {
		return "", fmt.Errorf("path %q does not name a file", path)
	}
	if dir == "" {
		dir = "."
	}
	_, resolved, err := w.locate(dir)
	if err != nil {
		return "", err
	}
	full := filepath.Join(resolved, base)
	if d, ok := w.denied(full); ok {
		return "", w.deniedError(path, d)
	}
	return w.rel(full), nil
}

// changeName is lstatName for a call that changes what is at path (Remove,
// Chmod): git's configuration and hooks are refused (refuseGit).
func (w *Workspace) changeName(path string) (string, error) {
	rel, err := w.lstatName(path)
	if err != nil {
		return "", err
	}
	if err := w.refuseGit(path, filepath.Join(w.root, rel)); err != nil {
		return "", err
	}
	return rel, nil
}

// Lstat returns the FileInfo of path itself: a symbolic link at path is
// reported as one, not followed (links in its directories are, beneath the
// root).
func (w *Workspace) Lstat(path string) (fs.FileInfo, error) {
	rel, err := w.lstatName(path)
	if err != nil {
		return nil, err
	}
	fi, err := w.fs.Lstat(rel)
	if err != nil {
		return nil, w.wrap(path, err)
	}
	return fi, nil
}

// Remove deletes the file or symbolic link at path (a link itself, never
// what it points to). A directory is refused. Removing what does not exist
// succeeds.
func (w *Workspace) Remove(path string) error {
	rel, err := w.changeName(path)
	if err != nil {
		return err
	}
	fi, err := w.fs.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return w.wrap(path, err)
	}
	if fi.IsDir() {
		return fmt.Errorf("%q is a directory, not a file", path)
	}
	if err := w.fs.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return w.wrap(path, err)
	}
	return nil
}

// Chmod sets the permission bits of the regular file at path, which must
// not be a symbolic link.
func (w *Workspace) Chmod(path string, mode fs.FileMode) error {
	rel, err := w.changeName(path)
	if err != nil {
		return err
	}
	fi, err := w.fs.Lstat(rel)
	if err != nil {
		return w.wrap(path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%q is not a regular file; its mode was left alone", path)
	}
	if err := w.fs.Chmod(rel, mode.Perm()); err != nil {
		return w.wrap(path, err)
	}
	return nil
}
