//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// metadataSyscalls change a file without writing its content: permissions,
// ownership and extended attributes. Landlock does not cover them, so under
// ReadOnly a seccomp filter refuses them with EPERM (a planner's `chmod` or
// `setfattr` must change nothing either). Timestamps are left alone: `touch`
// sets them on every file it creates in the scratch directory, and a seccomp
// filter cannot tell that file from one in the workdir.
var metadataSyscalls = append([]uintptr{
	unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
	unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
}, archMetadataSyscalls...)

// BPF instruction classes and fields used by the filter.
const (
	bpfLdW   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRetK  = unix.BPF_RET | unix.BPF_K
	offNr    = 0 // offsetof(struct seccomp_data, nr)
	offArch  = 4 // offsetof(struct seccomp_data, arch)
	x32Bit   = 0x40000000
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
)

// metadataFilter is a classic BPF program: a system call of another
// architecture (32-bit entry points would bypass the table) or of the
// x32 ABI is refused, the metadata calls are refused, the rest allowed.
func metadataFilter() []unix.SockFilter {
	n := len(metadataSyscalls)
	prog := []unix.SockFilter{
		{Code: bpfLdW, K: offArch},
		{Code: bpfJeqK, Jt: 1, Jf: 0, K: auditArch},
		{Code: bpfRetK, K: retEPERM},
		{Code: bpfLdW, K: offNr},
		{Code: bpfJgeK, Jt: uint8(n + 1), Jf: 0, K: x32Bit},
	}
	for i, nr := range metadataSyscalls {
		// Jump to the final "refuse" when equal; the allow sits just before it.
		prog = append(prog, unix.SockFilter{Code: bpfJeqK, Jt: uint8(n - i), Jf: 0, K: uint32(nr)})
	}
	return append(prog, unix.SockFilter{Code: bpfRetK, K: retAllow}, unix.SockFilter{Code: bpfRetK, K: retEPERM})
}

// installMetadataFilter installs metadataFilter on the calling thread only
// (no TSYNC): the harness keeps its own chmod, the command forked from this
// thread inherits the filter. no_new_privs must already be set.
func installMetadataFilter() error {
	prog := metadataFilter()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("sandbox: seccomp: %w", errno)
	}
	return nil
}
