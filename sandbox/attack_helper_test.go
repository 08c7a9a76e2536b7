//go:build linux

package sandbox

import (
	"debug/elf"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The helper runs before the command is confined, so nothing the command's
// configuration controls may run in it. An MCP server's environment comes
// from a project's .mcp.json (WithEnv); a dynamically linked harness9 (the
// default with cgo) would let the dynamic loader preload a library the
// repository ships into the helper, unconfined. The helper starts with an
// empty environment and hands the command its own.
func TestCommandEnvironmentDoesNotReachTheHelper(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if f, err := elf.Open(self); err == nil {
		dynamic := false
		for _, p := range f.Progs {
			dynamic = dynamic || p.Type == elf.PT_INTERP
		}
		f.Close()
		if !dynamic {
			t.Skip("the test binary is statically linked: no dynamic loader to attack")
		}
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is not installed (apt-get install gcc)")
	}
	eachRegime(t, func(t *testing.T, opts ...Option) {
		w := newWorld(t, opts...)
		canary := filepath.Join(w.outside, "preloaded")
		src := filepath.Join(w.root, "preload.c")
		mustWrite(t, src, `#include <stdio.h>
__attribute__((constructor)) static void run(void) {
	FILE *f = fopen("`+canary+`", "a");
	if (f) { fputs("ran\n", f); fclose(f); }
}
`)
		lib := filepath.Join(w.work, "libpreload.so")
		if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
			t.Fatalf("building the library: %v\n%s", err, out)
		}
		for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
			out, _ := w.run(t, p, "echo $LD_PRELOAD", WithEnv(map[string]string{"LD_PRELOAD": lib}))
			if !strings.Contains(out, lib) {
				t.Errorf("%v: the command did not get its environment:\n%s", p, out)
			}
		}
		if _, err := os.Stat(canary); err == nil {
			t.Error("a library named by the command's environment ran unconfined in the helper and wrote outside the workdir")
		}
	})
}

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
