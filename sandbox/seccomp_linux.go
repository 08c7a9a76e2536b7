//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// metadataSyscalls change a file without writing its content: permissions,
// ownership, timestamps and extended attributes. Landlock does not cover
// them, so under ReadOnly a seccomp filter refuses them with EPERM: a
// planner's `chmod`, `touch` of an existing file or `setfattr` must change
// nothing either. The cost: `touch` of a new file in the scratch directory
// creates it but reports that it could not set its times.
var metadataSyscalls = append([]uintptr{
	unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2,
	unix.SYS_FCHOWN, unix.SYS_FCHOWNAT,
	unix.SYS_UTIMENSAT,
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR, unix.SYS_SETXATTRAT,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_REMOVEXATTRAT,
}, archMetadataSyscalls...)

// BPF instruction classes and fields used by the filter.
const (
	bpfLdW   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRetK  = unix.BPF_RET | unix.BPF_K
	offNr    = 0  // offsetof(struct seccomp_data, nr)
	offArch  = 4  // offsetof(struct seccomp_data, arch)
	offArg0  = 16 // offsetof(struct seccomp_data, args[0]), low word on little-endian
	x32Bit   = 0x40000000
	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
)

// jump targets of the filter's assembler.
const (
	next  = iota // fall through to the next instruction
	allow        // the final ALLOW
	deny         // the final DENY (EPERM)
)

type insn struct {
	code   uint16
	k      uint32
	jt, jf int // next, allow or deny
}

// filter is a classic BPF program for seccomp:
//   - a system call of another architecture (32-bit entry points would
//     bypass the table) or of the x32 ABI is refused;
//   - with unixSockets, creating an AF_UNIX socket is refused: Landlock
//     before ABI 9 does not restrict connecting to a socket file, and a
//     command that reaches the user's D-Bus or systemd (`systemd-run
//     --user`) or a container daemon runs code outside the sandbox
//     (socketpair stays allowed: its ends have no address);
//   - with metadata, the metadataSyscalls are refused;
//   - everything else is allowed.
func filter(metadata, unixSockets bool) []unix.SockFilter {
	prog := []insn{
		{code: bpfLdW, k: offArch},
		{code: bpfJeqK, k: auditArch, jt: next, jf: deny},
		{code: bpfLdW, k: offNr},
		{code: bpfJgeK, k: x32Bit, jt: deny, jf: next},
	}
	if metadata {
		for _, nr := range metadataSyscalls {
			prog = append(prog, insn{code: bpfJeqK, k: uint32(nr), jt: deny, jf: next})
		}
	}
	if unixSockets {
		// Last, because it replaces the syscall number in the accumulator.
		prog = append(prog,
			insn{code: bpfJeqK, k: uint32(unix.SYS_SOCKET), jt: next, jf: allow},
			insn{code: bpfLdW, k: offArg0},
			insn{code: bpfJeqK, k: unix.AF_UNIX, jt: deny, jf: allow},
		)
	}
	allowAt, denyAt := len(prog), len(prog)+1
	out := make([]unix.SockFilter, 0, len(prog)+2)
	for i, in := range prog {
		f := unix.SockFilter{Code: in.code, K: in.k}
		if in.code == bpfJeqK || in.code == bpfJgeK {
			f.Jt, f.Jf = jump(i, in.jt, allowAt, denyAt), jump(i, in.jf, allowAt, denyAt)
		}
		out = append(out, f)
	}
	return append(out, unix.SockFilter{Code: bpfRetK, K: retAllow}, unix.SockFilter{Code: bpfRetK, K: retEPERM})
}

func jump(i, target, allowAt, denyAt int) uint8 {
	switch target {
	case allow:
		return uint8(allowAt - i - 1)
	case deny:
		return uint8(denyAt - i - 1)
	}
	return 0
}

// installFilter installs filter on the calling thread only (no TSYNC): the
// harness keeps its own system calls, the command forked from this thread
// inherits the filter. no_new_privs must already be set.
func installFilter(metadata, unixSockets bool) error {
	if !metadata && !unixSockets {
		return nil
	}
	prog := filter(metadata, unixSockets)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("sandbox: seccomp: %w", errno)
	}
	return nil
}
