package builtin

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
)

// openDir is a directory a search walk listed, kept open while files in it
// wait for a worker: the workers open those files by name relative to it
// (openat), so a file is found where the walk found it, beneath the root,
// however the tree changes meanwhile.
type openDir struct {
	f    *os.File
	fd   int
	refs atomic.Int32
}

func newOpenDir(f *os.File) *openDir {
	d := &openDir{f: f, fd: int(f.Fd())}
	d.refs.Store(1) // the walk's own reference, released when it leaves
	return d
}

func (d *openDir) acquire() { d.refs.Add(1) }

func (d *openDir) release() {
	if d.refs.Add(-1) == 0 {
		_ = d.f.Close()
	}
}

// readJob reads the file of j into buf (grown as needed) and returns its
// content and the buffer to reuse. ok is false for files that cannot be
// read, are not regular, or are too large. A file whose first read already
// shows a NUL byte is returned after that read, since it will be skipped
// anyway.
func (t *SearchFiles) readJob(j searchJob, buf []byte) (data, newBuf []byte, ok bool) {
	if j.dir != nil {
		if data, buf, ok, handled := readInDir(j.dir.fd, j.name, buf); handled {
			return data, buf, ok
		}
	}
	// A start file, a linked file, or a system without openat: through the
	// workspace, which refuses pipes and devices before opening.
	f, fi, err := t.ws.Open(j.rel)
	if err != nil {
		return nil, buf, false
	}
	defer f.Close()
	if !fi.Mode().IsRegular() {
		return nil, buf, false
	}
	return fill(f.Read, buf)
}

// fill reads with read until EOF into buf. It stops early at the size cap
// and after a first read that shows a binary file.
func fill(read func([]byte) (int, error), buf []byte) (data, newBuf []byte, ok bool) {
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if cap(buf) >= searchMaxFileSize {
				return nil, buf, false
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := read(buf[len(buf):cap(buf)])
		if n < 0 {
			n = 0
		}
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) || err == nil && n == 0 {
			return buf, buf, true
		}
		if err != nil {
			return buf, buf, len(buf) > 0 // search what was read
		}
		if len(buf) == n && looksBinary(buf) {
			return buf, buf, true
		}
	}
}
