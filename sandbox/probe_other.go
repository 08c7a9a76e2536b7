//go:build !linux

package sandbox

import "runtime"

func probeLandlock() Support {
	return Support{Reason: "the kernel sandbox uses Linux Landlock, which " + runtime.GOOS + " does not have"}
}
