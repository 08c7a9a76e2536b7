//go:build unix

package gitguard

import (
	"io/fs"
	"syscall"
)

// openFlags open a file without waiting for a writer (a FIFO swapped in)
// and without following a link at its last component.
const openFlags = syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOFOLLOW

func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
