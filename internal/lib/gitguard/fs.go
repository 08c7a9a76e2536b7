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
	got, err := f.Stat()
	if err != nil || !got.Mode().IsRegular() || inode(got) != inode(fi) {
		return nil, errNotRegular
	}
	if got.Size() > max {
		return nil, errors.New("the file is too large")
	}
	// Sized from the file, so a large index is read into one buffer.
	b := make([]byte, 0, got.Size()+1)
	b, err = readInto(b, io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errors.New("the file is too large")
	}
	return b, nil
}

// readInto appends what r has to b, growing b only if r has more than its
// capacity.
func readInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
