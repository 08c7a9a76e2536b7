// Package atomicfile is harness9's one atomic file writer: the file tools
// (write_file, edit_file) and the plan files (plans/, tasks/) replace files
// through it, beneath an os.Root, so a reader never sees half a file and a
// symlink planted on the way cannot send the write outside the root.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// NewFilePerm is the permission of a file Write creates.
const NewFilePerm fs.FileMode = 0o644

// ErrIsDir is returned (wrapped) when the target is a directory.
var ErrIsDir = errors.New("it is a directory")

// Write replaces name, a path relative to root, with data: the data goes to a
// temporary file in the same directory, is synced, then renamed over name,
// and the directory is synced so the rename survives a crash. Missing parent
// directories are created (0755), beneath root. An existing regular file
// keeps its permission bits; a new one gets NewFilePerm. A symlink or other
// non-directory at name is replaced, not followed: callers that want to
// write through a link resolve it first. It reports whether name was
// created.
func Write(root *os.Root, name string, data []byte) (created bool, err error) {
	return write(root, name, data, NewFilePerm, 0o755, true)
}

// WritePrivate is Write for a file only its owner may read or write
// (credentials): the file is written with mode 0600 whatever it had, and
// missing parent directories are created 0700.
func WritePrivate(root *os.Root, name string, data []byte) error {
	_, err := write(root, name, data, 0o600, 0o700, false)
	return err
}

// WriteFile is Write for a path: its directory is created (0700) when
// missing and is the root of the write.
func WriteFile(path string, data []byte) error {
	return writePath(path, func(root *os.Root, name string) error {
		_, err := Write(root, name, data)
		return err
	})
}

// WritePrivateFile is WritePrivate for a path, as WriteFile.
func WritePrivateFile(path string, data []byte) error {
	return writePath(path, func(root *os.Root, name string) error { return WritePrivate(root, name, data) })
}

func writePath(path string, write func(*os.Root, string) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create directory %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return write(root, filepath.Base(path))
}

// write replaces name with data; a new file gets perm, an existing regular
// file keeps its own when keep is set.
func write(root *os.Root, name string, data []byte, perm, dirPerm fs.FileMode, keep bool) (created bool, err error) {
	switch fi, err := root.Lstat(name); {
	case err == nil && fi.IsDir():
		return false, ErrIsDir
	case err == nil && fi.Mode().IsRegular():
		if keep {
			perm = fi.Mode().Perm()
		}
	case err == nil:
		// A symlink, pipe or socket is replaced by the new file.
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, err
	}
	dir := filepath.Dir(name)
	if err := root.MkdirAll(dir, dirPerm); err != nil {
		return false, fmt.Errorf("cannot create directory %s: %w", dir, err)
	}
	tmp, f, err := createTemp(root, dir, filepath.Base(name))
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			_ = root.Remove(tmp)
		}
	}()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(perm)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if err = errors.Join(werr, f.Close()); err != nil {
		return false, err
	}
	if err = root.Rename(tmp, name); err != nil {
		return false, err
	}
	syncDir(root, dir)
	return created, nil
}

// createTemp creates a new, empty file next to base in dir. O_EXCL never
// follows a symlink, so a link planted under the temporary name fails the
// attempt instead of redirecting it.
func createTemp(root *os.Root, dir, base string) (string, *os.File, error) {
	var lastErr error
	for range 10 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(b[:]))
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return name, f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", nil, err
		}
		lastErr = err
	}
	return "", nil, lastErr
}

// syncDir makes a rename in dir durable. It is best effort: some file
// systems refuse fsync on a directory, and the data itself is already
// synced.
func syncDir(root *os.Root, dir string) {
	d, err := root.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
