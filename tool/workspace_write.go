package tool

import (
	"errors"
	"io/fs"
	"os"
)

// testHookBeforeOpen, when set by a test, runs between the checks and the
// open, where a link swapped in by another process would land.
var testHookBeforeOpen func(rel string)

// writeFlags are the flags that make OpenFile open for writing.
const writeFlags = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREATE | os.O_TRUNC

// OpenFile opens the file at path as os.OpenFile does (flag, perm), with
// the workspace's checks. Opened for reading alone it is Open. Opened for
// writing it refuses what WriteFile refuses — a path outside the root or
// in the deny list, where git finds its configuration or hooks, a
// directory, pipe, socket or device — and checks again where the file
// opened really is before it truncates anything (O_TRUNC); O_CREATE creates
// missing directories too. The file is the one on disk: an editor's
// buffers (WithEditor) are not involved, so text the user may have open is
// better written with WriteText. Errors are worded for the model.
func (w *Workspace) OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if flag&writeFlags == 0 {
		f, _, err := w.Open(path)
		return f, err
	}
	f, _, err := w.openWrite(path, flag, perm)
	return f, err
}

// Append adds data at the end of the file at path, creating it (and its
// missing directories) when there is none, with OpenFile's checks; created
// reports whether it did.
func (w *Workspace) Append(path string, data []byte) (created bool, err error) {
	f, created, err := w.openWrite(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return false, err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return created, w.wrapAs("write", path, err)
	}
	return created, nil
}

// openWrite opens path for writing. The file is opened without O_TRUNC and
// without following a link swapped in after the checks, then checked where
// the kernel says it is; only then is it truncated. With O_CREATE, created
// reports whether this call made the file.
func (w *Workspace) openWrite(path string, flag int, perm fs.FileMode) (f *os.File, created bool, err error) {
	rel, err := w.prepareWrite(path, flag&os.O_CREATE != 0)
	if err != nil {
		return nil, false, err
	}
	if testHookBeforeOpen != nil {
		testHookBeforeOpen(rel)
	}
	open := flag&^os.O_TRUNC | openNoBlock
	if flag&os.O_CREATE != 0 && flag&os.O_EXCL == 0 {
		// Try to create it first, to know whether it was there.
		f, err = w.fs.OpenFile(rel, open|os.O_EXCL, perm)
		created = err == nil
		if errors.Is(err, fs.ErrExist) {
			f, err = w.fs.OpenFile(rel, open&^os.O_CREATE, perm)
		}
	} else {
		f, err = w.fs.OpenFile(rel, open, perm)
		created = err == nil && flag&os.O_CREATE != 0
	}
	if err != nil {
		return nil, false, w.wrap(path, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = refuseSpecial(path, fi)
	}
	if err == nil && fi.IsDir() {
		err = w.wrap(path, errors.New("is a directory"))
	}
	if err == nil {
		err = w.checkOpened(path, f)
	}
	if err == nil {
		if real, ok := openedPath(f); ok {
			err = w.refuseGit(path, real)
		}
	}
	if err == nil && flag&os.O_TRUNC != 0 {
		if err = f.Truncate(0); err != nil {
			err = w.wrapAs("write", path, err)
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, false, err
	}
	return f, created, nil
}
