//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package gitguard

import "io/fs"

// changeTime reports false: this system's change time is not read, so
// nothing is cached on the strength of it.
func changeTime(fs.FileInfo) (int64, bool) { return 0, false }
