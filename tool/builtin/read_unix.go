//go:build unix

package builtin

import "syscall"

// openNoBlock makes opening a named pipe return at once instead of waiting
// for a writer; regular files ignore it.
const openNoBlock = syscall.O_NONBLOCK

// readSearchable reads the file at path into buf (grown as needed) and
// returns its content and the buffer to reuse. ok is false for files that
// cannot be read or are too large. A file whose first read already shows a
// NUL byte is returned after that read, since it will be skipped anyway.
//
// It uses raw system calls: an os.File costs an fstat, a finalizer and poller
// bookkeeping per open, which is a third of the time of a search over
// thousands of small files.
func readSearchable(path string, buf []byte) (data, newBuf []byte, ok bool) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, buf, false
	}
	defer syscall.Close(fd)
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			if cap(buf) >= searchMaxFileSize {
				return nil, buf, false
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, buf, len(buf) > 0 // search what was read
		}
		if n == 0 {
			return buf, buf, true
		}
		buf = buf[:len(buf)+n]
		if len(buf) == n && looksBinary(buf) {
			return buf, buf, true
		}
	}
}
