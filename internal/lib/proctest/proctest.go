//go:build unix

// Package proctest runs the servers tests start (a Temporal dev server, an
// OpenTelemetry Collector, Prometheus): in their own process group, their
// output in a file, stopped when the test ends.
package proctest

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Start starts cmd with its output appended to the file log and stops it
// when t ends: SIGTERM to its process group, SIGKILL if it is still there
// 10 seconds later. The returned channel is closed once it has exited. On
// failure the test shows the log.
func Start(t testing.TB, cmd *exec.Cmd, log string) <-chan struct{} {
	t.Helper()
	logf, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("cannot start %s: %v", cmd.Path, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log)
			t.Logf("%s's output:\n%s", cmd.Path, b)
		}
	})
	return exited
}

// FreePorts returns n TCP ports on 127.0.0.1 that were free a moment ago.
func FreePorts(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}
