//go:build linux

package sandbox

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Attacks that only the namespaces stop: Landlock does not cover System V
// IPC, and root keeps, inside its user namespace, only the capabilities
// of file permissions.

// A System V shared memory segment of another program (a database's, a
// desktop's) is out of reach: the command has an IPC namespace of its own.
func TestSharedMemoryOfOthersUnreachable(t *testing.T) {
	requireNamespaces(t)
	const canary = "SHM-CANARY-1b9e"
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o644)
	if err != nil {
		t.Skipf("no System V shared memory here: %v", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	mem, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmDetach(mem)
	copy(mem, canary)
	w := newWorld(t)
	attacker := installAttacker(t, w.work)
	for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
		out, _ := w.run(t, p, attacker+"shm "+strconv.Itoa(id)+"; ipcs -m")
		if strings.Contains(out, canary) || strings.Contains(out, strconv.Itoa(id)+" ") {
			t.Errorf("%v: a command reached another program's shared memory:\n%s", p, out)
		}
		if !strings.Contains(out, "shmat") {
			t.Errorf("%v: the attack did not run:\n%s", p, out)
		}
	}
}

// Root's commands cannot administer even their own network namespace
// (bring up its loopback): only the file-permission capabilities are
// kept. A user's have none at all.
func TestCapabilitiesDropped(t *testing.T) {
	requireNamespaces(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	w := newWorld(t)
	const up = `import fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    fcntl.ioctl(s, 0x8914, struct.pack('16sH', b'lo', 1))
    print('lo brought up')
except OSError as e:
    print('refused', e)
print('flags', struct.unpack('16sH', fcntl.ioctl(s, 0x8913, struct.pack('16sH', b'lo', 0)))[1] & 1)
`
	mustWrite(t, w.work+"/up.py", up)
	out, err := w.run(t, WorkspaceWrite, "/usr/bin/env python3 up.py; grep CapEff /proc/self/status")
	if err != nil || !strings.Contains(out, "flags 0") || strings.Contains(out, "lo brought up") {
		t.Errorf("a command administered its network namespace: %v\n%s", err, out)
	}
	want := "CapEff:\t0000000000000000"
	if os.Geteuid() == 0 {
		want = "CapEff:\t000000000000001f" // chown, dac_override, dac_read_search, fowner, fsetid
	}
	if !strings.Contains(out, want) {
		t.Errorf("capabilities inside: want %q in\n%s", want, out)
	}
}

// Without a user namespace root's capabilities are the machine's: a
// command keeping them changed the machine's network configuration
// (through netlink, which stays open for local use) and its host name.
// In both regimes root's commands keep only the file-permission
// capabilities.
func TestRootCannotAdministerTheMachine(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a user's commands have no capabilities to drop")
	}
	ip, err := exec.LookPath("ip")
	if err != nil {
		t.Skip("ip (iproute2) is not installed")
	}
	const addr = "192.0.2.77" // TEST-NET-1
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		host, err := os.Hostname()
		if err != nil {
			t.Fatal(err)
		}
		out, _ := w.run(t, WorkspaceWrite, ip+" addr add "+addr+"/32 dev lo; hostname harness9-attacked; grep CapEff /proc/self/status")
		if now, _ := os.Hostname(); now != host {
			_ = syscall.Sethostname([]byte(host))
			t.Errorf("a command changed the host name to %q", now)
		}
		if lo, err := net.InterfaceByName("lo"); err == nil {
			addrs, _ := lo.Addrs()
			for _, a := range addrs {
				if strings.HasPrefix(a.String(), addr+"/") {
					_ = exec.Command(ip, "addr", "del", addr+"/32", "dev", "lo").Run()
					t.Errorf("a command added %s to the machine's loopback", a)
				}
			}
		}
		if !strings.Contains(out, "CapEff:\t000000000000001f") { // chown, dac_override, dac_read_search, fowner, fsetid
			t.Errorf("capabilities inside:\n%s", out)
		}
	})
}
