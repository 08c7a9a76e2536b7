//go:build linux && (amd64 || arm64)

package sandbox

import (
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

// ioUringSyscalls are refused under every policy, as Docker's default
// profile does: an io_uring submission performs its operation in the
// kernel without the system call seccomp would see (IORING_OP_SOCKET
// creates a socket the filter refuses, IORING_OP_SETXATTR changes what
// ReadOnly forbids). ENOSYS reads as "this kernel has no io_uring", which
// programs that use it (libuv, tokio) answer by falling back to plain
// system calls.
var ioUringSyscalls = []uintptr{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER}

// BPF instruction classes and fields used by the filter.
const (
	bpfLdW    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJgeK   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfAndK   = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	bpfRetK   = unix.BPF_RET | unix.BPF_K
	offNr     = 0   // offsetof(struct seccomp_data, nr)
	offArch   = 4   // offsetof(struct seccomp_data, arch)
	offArg0   = 16  // offsetof(struct seccomp_data, args[0]), low word on little-endian
	offArg1   = 24  // args[1]
	sockType  = 0xf // SOCK_TYPE_MASK: the type without SOCK_NONBLOCK, SOCK_CLOEXEC
	x32Bit    = 0x40000000
	retAllow  = unix.SECCOMP_RET_ALLOW
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
)

// jump targets of the filter's assembler: the final returns.
const (
	next   = iota // fall through to the next instruction
	allow         // ALLOW
	deny          // EPERM
	enosys        // ENOSYS
)

// skip jumps over n instructions (a jump target).
func skip(n int) int { return -n }

type insn struct {
	code   uint16
	k      uint32
	jt, jf int // next, a final return or a skip
}

// filterSpec says what a command's seccomp filter refuses beyond what it
// always refuses (other architectures' system calls, io_uring).
type filterSpec struct {
	// Metadata refuses metadataSyscalls (ReadOnly).
	Metadata bool
	// Sockets limits socket(2) to the families a command without network
	// may use: AF_NETLINK (local), and AF_INET/AF_INET6 only with Inet.
	// AF_UNIX is refused (Landlock before ABI 9 does not check connect(2)
	// on a socket file, and a command that reaches the user's D-Bus or
	// systemd (`systemd-run --user`) or a container daemon runs code
	// outside the sandbox), and so is every other family (AF_VSOCK reaches
	// the hypervisor, AF_PACKET and the rest reach devices). socketpair(2)
	// stays allowed for AF_UNIX stream and seqpacket sockets, whose ends
	// are connected to each other for good; a datagram end could send to
	// any datagram socket file by its name (sendto), or be connected to
	// one.
	Sockets bool
	// Inet allows AF_INET and AF_INET6 sockets under Sockets: the command
	// has a network namespace of its own with nothing in it, or it was
	// given the network but not the socket files.
	Inet bool
}

// filter is a classic BPF program for seccomp:
//   - a system call of another architecture (32-bit entry points would
//     bypass the table) or of the x32 ABI is refused;
//   - io_uring is refused (ENOSYS);
//   - with Metadata, the metadataSyscalls are refused;
//   - with Sockets, socket(2) is refused but for the families above, and
//     socketpair(2) but for AF_UNIX stream and seqpacket pairs;
//   - everything else is allowed.
func filter(spec filterSpec) []unix.SockFilter {
	prog := []insn{
		{code: bpfLdW, k: offArch},
		{code: bpfJeqK, k: auditArch, jt: next, jf: deny},
		{code: bpfLdW, k: offNr},
		{code: bpfJgeK, k: x32Bit, jt: deny, jf: next},
	}
	for _, nr := range ioUringSyscalls {
		prog = append(prog, insn{code: bpfJeqK, k: uint32(nr), jt: enosys, jf: next})
	}
	if spec.Metadata {
		for _, nr := range metadataSyscalls {
			prog = append(prog, insn{code: bpfJeqK, k: uint32(nr), jt: deny, jf: next})
		}
	}
	if spec.Sockets {
		// Last, because they replace the syscall number in the accumulator.
		pair := []insn{
			{code: bpfLdW, k: offArg0},
			{code: bpfJeqK, k: unix.AF_UNIX, jt: next, jf: deny},
			{code: bpfLdW, k: offArg1},
			{code: bpfAndK, k: sockType},
			{code: bpfJeqK, k: unix.SOCK_STREAM, jt: allow, jf: next},
			{code: bpfJeqK, k: unix.SOCK_SEQPACKET, jt: allow, jf: deny},
		}
		prog = append(prog, insn{code: bpfJeqK, k: uint32(unix.SYS_SOCKETPAIR), jt: next, jf: skip(len(pair))})
		prog = append(prog, pair...)
		prog = append(prog,
			insn{code: bpfJeqK, k: uint32(unix.SYS_SOCKET), jt: next, jf: allow},
			insn{code: bpfLdW, k: offArg0},
			insn{code: bpfJeqK, k: unix.AF_NETLINK, jt: allow, jf: next},
		)
		if spec.Inet {
			prog = append(prog,
				insn{code: bpfJeqK, k: unix.AF_INET, jt: allow, jf: next},
				insn{code: bpfJeqK, k: unix.AF_INET6, jt: allow, jf: next},
			)
		}
		prog = append(prog, insn{code: bpfJeqK, k: 0, jt: deny, jf: deny})
	}
	return assemble(prog)
}

// assemble resolves the jump targets and appends the final returns.
func assemble(prog []insn) []unix.SockFilter {
	at := map[int]int{allow: len(prog), deny: len(prog) + 1, enosys: len(prog) + 2}
	out := make([]unix.SockFilter, 0, len(prog)+3)
	for i, in := range prog {
		f := unix.SockFilter{Code: in.code, K: in.k}
		if in.code == bpfJeqK || in.code == bpfJgeK {
			f.Jt, f.Jf = jump(i, in.jt, at), jump(i, in.jf, at)
		}
		out = append(out, f)
	}
	return append(out,
		unix.SockFilter{Code: bpfRetK, K: retAllow},
		unix.SockFilter{Code: bpfRetK, K: retEPERM},
		unix.SockFilter{Code: bpfRetK, K: retENOSYS})
}

func jump(i, target int, at map[int]int) uint8 {
	switch {
	case target == next:
		return 0
	case target < 0:
		return uint8(-target)
	}
	return uint8(at[target] - i - 1)
}

// filterBytes is the filter as the kernel reads it (struct sock_filter
// entries), for the helper to install on its thread.
func filterBytes(spec filterSpec) []byte {
	prog := filter(spec)
	return unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*int(unsafe.Sizeof(prog[0])))
}
