//go:build linux

package sandbox

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// io_uring performs operations without the system calls the seccomp
// filter sees: a socket from IORING_OP_SOCKET, an extended attribute from
// IORING_OP_FSETXATTR. It is refused under both policies, in both regimes;
// the canaries (a UDP listener, a socket file outside the workdir, the
// file's attributes) must show nothing.
func TestIOUringRefused(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		attacker := installAttacker(t, w.work)
		udp := newUDPCanary(t, "udp4", "127.0.0.1:0")
		sock := filepath.Join(w.outside, "daemon.sock")
		conns := unixCanary(t, sock)
		target := filepath.Join(w.work, "a.txt")
		for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
			out, _ := w.run(t, p, attacker+"uring-udp "+udp.addr()+"; "+attacker+"uring-unix "+sock+"; "+attacker+"uring-xattr a.txt")
			worked := strings.Contains(out, "sent") || strings.Contains(out, "connected") || strings.Contains(out, "xattr set")
			if worked {
				t.Errorf("%v: io_uring worked:\n%s", p, out)
			} else if !strings.Contains(out, "io_uring_setup") {
				t.Errorf("%v: the io_uring attack did not run:\n%s", p, out)
			}
		}
		if got := udp.received(); got != "" {
			t.Errorf("a datagram left through an io_uring socket: %q", got)
		}
		silent(t, conns, "an io_uring socket connected to a socket file outside the workdir")
		if n, _ := unix.Getxattr(target, "user.pwned", nil); n > 0 {
			t.Error("io_uring set an extended attribute")
		}
	})
}
