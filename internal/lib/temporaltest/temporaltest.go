//go:build unix

// Package temporaltest starts a Temporal dev server for tests: the
// `temporal` CLI's `server start-dev`, headless, on free ports, with its
// database in the test's temporary directory, stopped when the test ends.
package temporaltest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/harness9/harness9/internal/lib/proctest"
)

// Install is the command that installs the CLI the tests need.
const Install = "go install github.com/temporalio/cli/cmd/temporal@v1.5.1"

// Server is a running dev server.
type Server struct {
	// Address is the frontend's host:port.
	Address string
	// Log is the server's output file.
	Log string
}

// Find returns the temporal CLI's path: on PATH or in $(go env GOPATH)/bin.
func Find() string {
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = string(out[:len(out)-1])
		}
	}
	for _, dir := range filepath.SplitList(gopath) {
		p := filepath.Join(dir, "bin", "temporal")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// Start starts a dev server for t. Without the CLI the test is skipped
// with the install command, or fails when the environment variable CI is
// set (CI installs it; a missing CLI there is a broken pipeline).
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Find()
	if bin == "" {
		msg := "temporal CLI not installed: " + Install
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// The ports are free when chosen but may be taken before the server
	// binds them (other tests start servers too): a server that exits
	// for that is started again on other ports.
	for attempt := 1; ; attempt++ {
		s, err := start(t, bin)
		if err == nil {
			return s
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatal(err)
		}
	}
}

// errPortTaken is why a server exited that lost a port to another process.
var errPortTaken = errors.New("a port was taken before the server bound it")

func start(t testing.TB, bin string) (*Server, error) {
	t.Helper()
	dir := t.TempDir()
	ports := proctest.FreePorts(t, 3)
	s := &Server{Address: "127.0.0.1:" + ports[0], Log: filepath.Join(dir, "server.log")}
	cmd := exec.Command(bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1",
		"--port", ports[0], "--http-port", ports[1], "--metrics-port", ports[2],
		"--db-filename", filepath.Join(dir, "temporal.db"), "--log-level", "error")
	exited := proctest.Start(t, cmd, s.Log)
	if err := s.waitReady(exited); err != nil {
		out, _ := os.ReadFile(s.Log)
		if strings.Contains(string(out), "address already in use") {
			return nil, errPortTaken
		}
		return nil, fmt.Errorf("the Temporal dev server did not become ready: %w\n%s", err, out)
	}
	return s, nil
}

// waitReady dials until the frontend answers a health check and the
// default namespace is usable.
func (s *Server) waitReady(exited <-chan struct{}) error {
	deadline := time.Now().Add(90 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("the server exited")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		c, err := client.DialContext(ctx, client.Options{HostPort: s.Address, Logger: quiet{}})
		if err == nil {
			_, err = c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
			c.Close()
		}
		cancel()
		if err == nil {
			return nil
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	return last
}

// Client dials the server; the client is closed when the test ends and
// logs nothing.
func (s *Server) Client(t testing.TB) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: s.Address, Logger: quiet{}})
	if err != nil {
		t.Fatalf("cannot dial the Temporal dev server at %s: %v", s.Address, err)
	}
	t.Cleanup(c.Close)
	return c
}

// quiet drops the SDK's log lines.
type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}
