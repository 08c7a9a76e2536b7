//go:build linux

package helper

import (
	"syscall"
	"unsafe"
)

// The system calls the helper needs that neither package syscall nor
// golang.org/x/sys/unix wraps as it needs them, made directly: no package
// beyond those two and the standard library's earliest is imported, so
// that the Go runtime reaches its init function (and the helper) after as
// few package initialisations of the program as possible.

// prctl options and capability numbers (linux/prctl.h, capability.h).
const (
	prSetPdeathsig        = 1
	prSetDumpable         = 4
	prCapbsetDrop         = 24
	prSetChildSubreaper   = 36
	prSetNoNewPrivs       = 38
	prCapAmbient          = 47
	prCapAmbientClearAll  = 4
	capLastCap            = 40
	linuxCapabilityV3     = 0x20080522
	rlimitNproc           = 6
	oPath                 = 0x200000 // O_PATH, the same on amd64 and arm64
	seccompSetModeFilter  = 1
	sysLandlockAddRule    = 445 // the same number on every architecture
	sysLandlockRestrict   = 446
	sysCloseRange         = 436 // the same number on every architecture
	landlockRulePathBelow = 1
	// Reading a directory tree: execute, read file, read directory.
	landlockRead = 1<<0 | 1<<2 | 1<<3
)

func prctl(option, arg2 uintptr) error {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, option, arg2, 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

type capHeader struct {
	version uint32
	pid     int32
}

type capData struct {
	effective, permitted, inheritable uint32
}

func capset(effective, permitted [2]uint32) error {
	hdr := capHeader{version: linuxCapabilityV3}
	data := [2]capData{
		{effective: effective[0], permitted: permitted[0]},
		{effective: effective[1], permitted: permitted[1]},
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return e
	}
	return nil
}

// pathBeneath is struct landlock_path_beneath_attr (packed: the kernel
// reads its first 12 bytes).
type pathBeneath struct {
	allowed uint64
	fd      int32
}

func landlockAddPath(ruleset, fd int, access uint64) error {
	attr := pathBeneath{allowed: access, fd: int32(fd)}
	if _, _, e := syscall.RawSyscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBelow, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

func landlockRestrictSelf(ruleset int, flags uint32) error {
	if _, _, e := syscall.RawSyscall(sysLandlockRestrict, uintptr(ruleset), uintptr(flags), 0); e != 0 {
		return e
	}
	return nil
}

// sockFprog is struct sock_fprog.
type sockFprog struct {
	len    uint16
	filter unsafe.Pointer
}

// seccomp installs a classic BPF program (struct sock_filter entries of 8
// bytes each) on the calling thread.
func seccomp(prog []byte) error {
	if len(prog) == 0 {
		return nil
	}
	fprog := sockFprog{len: uint16(len(prog) / 8), filter: unsafe.Pointer(&prog[0])}
	if _, _, e := syscall.RawSyscall(sysSeccomp, seccompSetModeFilter, 0, uintptr(unsafe.Pointer(&fprog))); e != 0 {
		return e
	}
	return nil
}

// sigaction is the kernel's struct sigaction (the same layout on amd64
// and arm64).
type sigaction struct {
	handler  uintptr
	flags    uint64
	restorer uintptr
	mask     uint64
}

// dieBySignal ends the process with sig as if it had not been handled:
// the disposition is reset to the default (the Go runtime's handler would
// intercept it) and the signal unblocked, then sent to this thread.
func dieBySignal(sig syscall.Signal) {
	var sa sigaction
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&sa)), 0, 8, 0, 0)
	mask := uint64(1) << (uint(sig) - 1)
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 1 /* SIG_UNBLOCK */, uintptr(unsafe.Pointer(&mask)), 0, 8, 0, 0)
	syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), sig)
}
