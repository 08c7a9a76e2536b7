package sandbox

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// world is a throwaway machine layout for attacks: a workdir with planted
// links, a fake home with credentials, a directory outside both, and a
// loopback listener that records every connection.
type world struct {
	root, work, home, outside, data string
	secret                          string // bytes that must never be read
	sb                              *Sandbox
	ln                              net.Listener
	conns                           chan struct{}
}

func requireLandlock(t testing.TB) {
	t.Helper()
	if sup := Probe(); !sup.Available {
		t.Skipf("the kernel sandbox is unavailable here: %s", sup.Reason)
	}
}

func newWorld(t *testing.T, opts ...Option) *world {
	t.Helper()
	requireLandlock(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{
		root:    root,
		work:    filepath.Join(root, "work"),
		home:    filepath.Join(root, "home"),
		outside: filepath.Join(root, "outside"),
		data:    filepath.Join(root, "home", ".harness9"),
		secret:  "S3CRET-" + strings.Repeat("x", 8),
	}
	for _, d := range []string{w.work, filepath.Join(w.home, ".ssh"), w.outside, w.data} {
		mustMkdir(t, d)
	}
	mustWrite(t, filepath.Join(w.home, ".ssh", "id_rsa"), w.secret)
	mustWrite(t, filepath.Join(w.data, "harness9.db"), w.secret)
	mustWrite(t, filepath.Join(w.outside, "secret"), w.secret)
	mustWrite(t, filepath.Join(w.work, "a.txt"), "alpha\nbeta\n")
	for name, target := range map[string]string{
		"link": w.outside, "rootlink": "/", "homelink": w.home, "keylink": filepath.Join(w.home, ".ssh", "id_rsa"),
	} {
		if err := os.Symlink(target, filepath.Join(w.work, name)); err != nil {
			t.Fatal(err)
		}
	}
	w.ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.ln.Close() })
	w.conns = make(chan struct{}, 16)
	go func() {
		for {
			c, err := w.ln.Accept()
			if err != nil {
				return
			}
			w.conns <- struct{}{}
			c.Close()
		}
	}()
	base := []Option{WithDeny(filepath.Join(w.home, ".ssh"), w.data)}
	w.sb, err = New(w.work, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) port() string {
	return strings.TrimPrefix(w.ln.Addr().String(), "127.0.0.1:")
}

// run runs a bash command confined by p and returns its combined output.
func (w *world) run(t *testing.T, p Policy, command string, opts ...StartOption) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", command)
	cmd.Env = os.Environ() // as harness9's CLI passes it: the policy scrubs it
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 2 * time.Second
	proc, err := w.sb.Start(cmd, p, opts...)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	err = cmd.Wait()
	proc.Cleanup()
	return out.String(), err
}

// snapshot records every path under dir with its size and mode, to prove
// that nothing changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		body := ""
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			body = string(b)
		}
		m[p] = fi.Mode().String() + "|" + fi.ModTime().String() + "|" + body
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameSnapshot(a, b map[string]string) (string, bool) {
	for k, v := range a {
		if b[k] != v {
			return k, false
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			return k, false
		}
	}
	return "", true
}

// processesWith lists the pids whose command line contains marker.
func processesWith(marker string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

func mustMkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// eachRegime runs f once per regime this machine offers: with namespaces
// where the kernel allows them, and without (as on a system that refuses
// user namespaces). In CI a machine without namespaces fails the test:
// it would silently test half of the sandbox.
func eachRegime(t *testing.T, f func(t *testing.T, opts ...Option)) {
	t.Helper()
	if ok, why := ProbeNamespaces(); ok {
		t.Run("namespaces", func(t *testing.T) { f(t) })
	} else if os.Getenv("CI") != "" && os.Getenv(envRefused) == "" {
		t.Errorf("no user namespaces on this CI machine: %s", why)
	} else {
		t.Logf("namespaces regime not tested: %s", why)
	}
	t.Run("no-namespaces", func(t *testing.T) { f(t, WithNamespaces(false)) })
}

// envRefused is set in the test binary TestUserNamespacesRefused starts
// where the kernel refuses user namespaces.
const envRefused = "HARNESS9_TEST_USERNS_REFUSED"

// udpCanary listens on a loopback UDP port of network (udp4 or udp6) and
// reports whether anything arrived.
type udpCanary struct {
	conn net.PacketConn
}

func newUDPCanary(t *testing.T, network, addr string) *udpCanary {
	t.Helper()
	c, err := net.ListenPacket(network, addr)
	if err != nil {
		t.Skipf("no %s loopback here: %v", network, err)
	}
	t.Cleanup(func() { c.Close() })
	return &udpCanary{conn: c}
}

func (u *udpCanary) addr() string { return u.conn.LocalAddr().String() }

// received reports what arrived within a short wait (nothing, for a
// canary that must stay silent).
func (u *udpCanary) received() string {
	u.conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	buf := make([]byte, 64)
	n, _, err := u.conn.ReadFrom(buf)
	if err != nil {
		return ""
	}
	return string(buf[:n])
}

// runUnderBoth runs every command under both policies.
func (w *world) runUnderBoth(t *testing.T, commands ...string) {
	t.Helper()
	for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
		for _, c := range commands {
			w.run(t, p, c)
		}
	}
}

// silent fails the test with msg if anything arrives on ch within a short
// wait: a canary that must stay silent.
func silent[T any](t *testing.T, ch <-chan T, msg string) {
	t.Helper()
	select {
	case <-ch:
		t.Error(msg)
	case <-time.After(200 * time.Millisecond):
	}
}
