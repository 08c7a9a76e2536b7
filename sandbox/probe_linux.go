//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// probeLandlock asks the kernel which Landlock ABI it speaks.
func probeLandlock() Support {
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return Support{Reason: "this kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK)"}
	case errors.Is(err, syscall.EOPNOTSUPP):
		return Support{Reason: "Landlock is built in but not enabled at boot (add landlock to the lsm= kernel parameter)"}
	case err != nil:
		return Support{Reason: fmt.Sprintf("the Landlock probe failed: %v", err)}
	case abi < minABI:
		return Support{ABI: abi, Reason: fmt.Sprintf("the kernel speaks Landlock ABI %d; harness9 needs %d or later (Linux 6.7+) to deny network access", abi, minABI)}
	}
	return Support{Available: true, ABI: abi}
}
