package builtin

import (
	"io"
	"os"
	"syscall"
)

// openChildDir opens the directory name inside parent with openat(2).
// O_NOFOLLOW: a walk only descends into real directories, so a link
// swapped in since the listing fails instead of leading elsewhere. handled
// is always true here; d is nil when the open failed.
func openChildDir(parent *os.File, name string) (d *os.File, handled bool) {
	fd, err := openat(parent, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC)
	if err != nil {
		return nil, true
	}
	return os.NewFile(uintptr(fd), name), true
}

// readChild reads up to max bytes of the regular file name inside dir.
// handled is false when name is a symlink: the caller then reads it
// through the workspace, which follows it beneath the root. A missing or
// non-regular file (a FIFO is opened without blocking, then refused) reads
// as nothing.
func readChild(dir *os.File, name string, max int64) (data []byte, handled bool) {
	fd, err := openat(dir, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC)
	if err == syscall.ELOOP {
		return nil, false
	}
	if err != nil {
		return nil, true
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, true
	}
	data, _ = io.ReadAll(io.LimitReader(f, max))
	return data, true
}

// openat opens name relative to the open directory dir.
func openat(dir *os.File, name string, flags int) (int, error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd, oerr := -1, error(nil)
	err = rc.Control(func(dirfd uintptr) {
		for {
			fd, oerr = syscall.Openat(int(dirfd), name, flags, 0)
			if oerr != syscall.EINTR {
				return
			}
		}
	})
	if err != nil {
		return -1, err
	}
	return fd, oerr
}
