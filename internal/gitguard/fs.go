package gitguard

import (
	"errors"
	"io"
	"os"
)

var errNotRegular = errors.New("not a regular file")

// readRegular reads the regular file at path, at most max bytes of it (an
// error beyond). A link, directory, FIFO or device is refused without being
// opened, and the file opened must be the one looked at.
func readRegular(path string, max int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if got, err := f.Stat(); err != nil || !got.Mode().IsRegular() || inode(got) != inode(fi) {
		return nil, errNotRegular
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errors.New("the file is too large")
	}
	return b, nil
}
