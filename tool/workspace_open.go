package tool

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harness9/harness9/internal/lib/atomicfile"
)

// Open opens path, a regular file or a directory, for reading through the
// workspace's os.Root. A named pipe, socket or device is refused before it
// is opened (the error wraps ErrNotRegular), and the open itself does not
// wait for a writer, so a file swapped for a FIFO in between cannot hang
// the agent either. The returned FileInfo is the open file's. Errors wrap
// fs.ErrNotExist when there is nothing at path; their text is worded for
// the model.
func (w *Workspace) Open(path string) (*os.File, fs.FileInfo, error) {
	rel, resolved, err := w.locate(path)
	if err != nil {
		return nil, nil, err
	}
	fi, rel, err := w.stat(rel, resolved)
	if err != nil {
		return nil, nil, w.wrap(path, err)
	}
	if err := refuseSpecial(path, fi); err != nil {
		return nil, nil, err
	}
	f, err := w.fs.OpenFile(rel, os.O_RDONLY|openNoBlock, 0)
	if err != nil {
		return nil, nil, w.wrap(path, err)
	}
	if fi, err = f.Stat(); err == nil {
		err = refuseSpecial(path, fi)
	}
	if err == nil {
		err = w.checkOpened(path, f)
	}
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Stat returns the FileInfo of what path leads to, symlinks followed
// beneath the root.
func (w *Workspace) Stat(path string) (fs.FileInfo, error) {
	rel, resolved, err := w.locate(path)
	if err != nil {
		return nil, err
	}
	fi, _, err := w.stat(rel, resolved)
	if err != nil {
		return nil, w.wrap(path, err)
	}
	return fi, nil
}

// stat stats rel beneath the root. os.Root refuses absolute symlinks, even
// those that lead back inside; for those the location Resolve found (which
// has no link left) is tried, and returned as the name to open.
func (w *Workspace) stat(rel, resolved string) (fs.FileInfo, string, error) {
	fi, err := w.fs.Stat(rel)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return fi, rel, err
	}
	if real := w.rel(resolved); real != rel {
		if fi, err2 := w.fs.Stat(real); err2 == nil {
			return fi, real, nil
		}
	}
	return nil, rel, err
}

// ReadFile reads a whole regular file, at most max bytes of it (no limit
// when max <= 0); truncated reports whether there was more.
func (w *Workspace) ReadFile(path string, max int64) (data []byte, truncated bool, err error) {
	f, fi, err := w.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if fi.IsDir() {
		return nil, false, fmt.Errorf("%q is a directory, not a file", path)
	}
	if max <= 0 {
		data, err = readAll(f, -1)
		return data, false, err
	}
	data, err = readAll(f, max+1)
	if int64(len(data)) > max {
		return data[:max], true, err
	}
	return data, false, err
}

// WriteFile replaces the file at path with data, atomically (a temporary
// file, fsync, rename), creating missing directories, all beneath the
// root. A symlink at path is written through to its target when that is
// inside the workspace. It refuses a directory, pipe, socket or device at
// path, and reports whether the file was created.
func (w *Workspace) WriteFile(path string, data []byte) (created bool, err error) {
	rel, err := w.prepareWrite(path, true)
	if err != nil {
		return false, err
	}
	created, err = atomicfile.Write(w.fs, rel, data)
	if err != nil {
		return false, w.wrapAs("write", path, err)
	}
	return created, nil
}

// prepareWrite checks that path may be written (beneath the root, not in
// the deny list, not where git finds configuration or hooks, not a
// directory, pipe, socket or device), creates its missing directories when
// mkdir is set, and returns its name relative to the root, with no symlink
// left in it.
func (w *Workspace) prepareWrite(path string, mkdir bool) (rel string, err error) {
	_, resolved, err := w.locate(path)
	if err != nil {
		return "", err
	}
	if err := w.refuseGit(path, resolved); err != nil {
		return "", err
	}
	// The resolved name has no symlink in it now; os.Root keeps it beneath
	// the root should one be planted before the write.
	rel = w.rel(resolved)
	if fi, err := w.fs.Lstat(rel); err == nil {
		if fi.IsDir() {
			return "", fmt.Errorf("%q is a directory, not a file", path)
		}
		if err := refuseSpecial(path, fi); err != nil {
			return "", err
		}
	}
	dir := filepath.Dir(rel)
	if mkdir {
		if err := w.fs.MkdirAll(dir, 0o755); err != nil {
			return "", w.wrap(path, fmt.Errorf("cannot create directory: %w", err))
		}
	}
	d, err := w.fs.Open(dir)
	if err != nil {
		return "", w.wrap(path, err)
	}
	err = w.checkOpened(path, d)
	_ = d.Close()
	if err != nil {
		return "", err
	}
	return rel, nil
}

// refuseSpecial fails for anything but a regular file or a directory.
func refuseSpecial(path string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() || m.IsDir() {
		return nil
	}
	kind := "a special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	case m&fs.ModeSymlink != 0:
		kind = "a symbolic link"
	}
	return fmt.Errorf("%q is %s, %w; only regular files and directories can be used", path, kind, ErrNotRegular)
}

// wrap words an os.Root error for the model, keeping it matchable with
// errors.Is.
func (w *Workspace) wrap(path string, err error) error { return w.wrapAs("open", path, err) }

// wrapAs is wrap for what verb failed to do ("open", "write").
func (w *Workspace) wrapAs(verb, path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%q does not exist: %w", path, err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the root's own name for the file says nothing to the model
	}
	return fmt.Errorf("cannot %s %q: %w", verb, path, err)
}

// checkOpened asks the kernel where an opened file really is and refuses
// it when that is outside the root or in the deny list: the checks of
// locate ran before the open, and a link swapped in between must not win.
func (w *Workspace) checkOpened(path string, f *os.File) error {
	real, ok := openedPath(f)
	if !ok {
		return nil // no way to ask on this system; locate's checks stand
	}
	if !within(w.root, real) {
		return refusef("path %q is outside the workspace %s; use a path inside it", path, w.root)
	}
	if d, ok := w.denied(real); ok {
		return w.deniedError(path, d)
	}
	return nil
}

// readAll reads r to the end, or its first n bytes when n >= 0.
func readAll(r io.Reader, n int64) ([]byte, error) {
	if n >= 0 {
		r = io.LimitReader(r, n)
	}
	return io.ReadAll(r)
}

// ReadDir lists the directory at path, opened like Open (beneath the
// root, deny list applied), its entries sorted by name. A directory that
// does not exist has no entries and is no error, so callers that discover
// optional files (skills, commands, agents) need no special case; what is
// there but is not a directory is an error.
func (w *Workspace) ReadDir(path string) ([]fs.DirEntry, error) {
	d, fi, err := w.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if !fi.IsDir() {
		return nil, errors.New("not a directory")
	}
	entries, err := d.ReadDir(-1)
	if err != nil && len(entries) == 0 {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}
