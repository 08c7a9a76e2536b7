package tool

import (
	"os"
	"strconv"
)

// openedPath returns the path the kernel has for an open file.
func openedPath(f *os.File) (string, bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	var p string
	var rerr error
	if err := rc.Control(func(fd uintptr) {
		p, rerr = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd)))
	}); err != nil || rerr != nil || len(p) == 0 || p[0] != '/' {
		return "", false // no /proc, or not a path (a deleted file says so)
	}
	return p, true
}
