//go:build linux

package sandbox

import (
	"net"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// A descriptor the harness inherited without close-on-exec (from whatever
// started it: a terminal, an editor, a job runner) is not the command's:
// a socket among them would reach whatever is at its other end.
func TestInheritedFilesDoNotReachTheCommand(t *testing.T) {
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		sock := filepath.Join(w.outside, "inherited.sock")
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		got := make(chan string, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			b := make([]byte, 64)
			n, _ := c.Read(b)
			got <- string(b[:n])
		}()
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		f, err := conn.(*net.UnixConn).File()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_SETFD, 0); e != 0 {
			t.Fatal(e)
		}
		w.runUnderBoth(t, "echo leak >&"+strconv.Itoa(int(f.Fd())))
		conn.Close()
		f.Close()
		if msg := <-got; msg != "" {
			t.Errorf("a confined command wrote to a socket the harness inherited: %q", msg)
		}
	})
}
