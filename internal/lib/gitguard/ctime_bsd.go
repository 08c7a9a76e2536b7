//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package gitguard

import (
	"io/fs"
	"syscall"
)

// changeTime is the time fi's inode last changed, which no program can set
// (writing the file or setting its times moves it to now); false when the
// system does not say.
func changeTime(fi fs.FileInfo) (int64, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano(), true
	}
	return 0, false
}
