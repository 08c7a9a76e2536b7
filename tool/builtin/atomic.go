package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// writeAtomic replaces path with data so that readers see either the old
// file or the new one, never a half-written mix: the data goes to a
// temporary file in the same directory, is synced, then renamed over path.
// An existing file keeps its permission bits; a new one gets 0644. It
// reports whether the file was created.
func writeAtomic(path string, data []byte) (created bool, err error) {
	perm := fs.FileMode(0o644)
	switch fi, err := os.Stat(path); {
	case err == nil && fi.IsDir():
		return false, errors.New("it is a directory")
	case err == nil:
		perm = fi.Mode().Perm()
	case errors.Is(err, fs.ErrNotExist):
		created = true
	default:
		return false, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("cannot create directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		tmp.Close()
		return false, err
	}
	if err = tmp.Chmod(perm); err != nil {
		tmp.Close()
		return false, err
	}
	if err = tmp.Sync(); err != nil {
		tmp.Close()
		return false, err
	}
	if err = tmp.Close(); err != nil {
		return false, err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return false, err
	}
	return created, nil
}
