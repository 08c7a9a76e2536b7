//go:build unix

// Package pgtest gives tests a real, throwaway PostgreSQL server: a cluster
// made by initdb in a temporary directory, started by pg_ctl on a random
// free port with its unix socket beside it, and deleted when the tests end.
// Each test gets a database of its own on the package's one cluster.
//
// A test package that uses it runs its tests through Main:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestX(t *testing.T) {
//		dsn := pgtest.NewDatabase(t) // postgres://… for an empty database
//	}
//
// Without the server binaries a test is skipped with a message that names
// the install command, except when the CI environment variable is set:
// there it fails, so a CI machine missing PostgreSQL cannot pass quietly.
//
// PostgreSQL refuses to run as root. When the tests run as root the
// cluster is created and run as the "postgres" user that Debian's package
// creates, in a directory that user owns.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// InstallHint is the command that installs what this package needs.
const InstallHint = "apt-get install -y postgresql"

// Cluster is a running throwaway PostgreSQL server.
type Cluster struct {
	// Dir holds the data directory, the socket and the server log.
	Dir string
	// Port is the TCP port (on 127.0.0.1) and the socket's number.
	Port int
	// User is the superuser every DSN names; its connections are trusted.
	User string

	bin   string
	cred  *syscall.Credential // nil unless the server runs as another user
	dbSeq atomic.Int64
}

var (
	mu       sync.Mutex
	shared   *Cluster
	startErr error
	inMain   bool
)

// Main runs the package's tests and then stops and deletes the cluster,
// if one was started. Call it from TestMain.
func Main(m *testing.M) {
	mu.Lock()
	inMain = true
	mu.Unlock()
	code := m.Run()
	mu.Lock()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		}
		shared = nil
	}
	mu.Unlock()
	os.Exit(code)
}

// NewDatabase creates an empty database on the package's cluster, starting
// the cluster on first use, and returns a postgres:// URL for it.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return Shared(t).NewDatabase(t)
}

// Shared returns the package's cluster, starting it on first use. It skips
// t when PostgreSQL is not installed (fails it when CI is set).
func Shared(t testing.TB) *Cluster {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if !inMain {
		t.Fatal("pgtest: call pgtest.Main(m) from the package's TestMain, which stops the cluster when the tests end")
	}
	if shared == nil && startErr == nil {
		shared, startErr = Start()
	}
	if startErr != nil {
		Unavailable(t, startErr)
	}
	return shared
}

// ErrNotInstalled is matched (errors.Is) by Start's error when the server
// binaries or the user to run them as are missing.
var ErrNotInstalled = errors.New("postgres not installed")

// Unavailable skips t because of err, or fails it when err is not
// ErrNotInstalled or when the CI environment variable is set.
func Unavailable(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNotInstalled) && os.Getenv("CI") == "" {
		t.Skipf("%v: %s", err, InstallHint)
	}
	t.Fatalf("pgtest: %v (install with: %s)", err, InstallHint)
}

// Start creates and starts a new cluster. The caller stops it with Stop.
func Start() (*Cluster, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	c := &Cluster{bin: bin, User: "postgres"}
	reapOrphans(bin)
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("%w: running as root needs the postgres user the package creates (%v)", ErrNotInstalled, err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	// Not t.TempDir(): its parents are private to the user running the
	// tests, and the server may run as another user.
	if c.Dir, err = os.MkdirTemp("", "harness9-pgtest-"); err != nil {
		return nil, err
	}
	// The owner file lets a later run stop this cluster if the tests die
	// before Stop (a go test timeout, a kill).
	if err := os.WriteFile(filepath.Join(c.Dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		_ = os.RemoveAll(c.Dir)
		return nil, err
	}
	if c.cred != nil {
		if err := os.Chown(c.Dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			_ = os.RemoveAll(c.Dir)
			return nil, err
		}
	}
	if err := c.initAndStart(); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

func (c *Cluster) initAndStart() error {
	data := filepath.Join(c.Dir, "data")
	if out, err := c.command("initdb", "-D", data, "-U", c.User, "-A", "trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	// A free port can be taken between asking and listening: try a few.
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return err
		}
		opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", port, c.Dir)
		out, err := c.command("pg_ctl", "-D", data, "-l", filepath.Join(c.Dir, "server.log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput()
		if err == nil {
			c.Port = port
			return nil
		}
		log, _ := os.ReadFile(filepath.Join(c.Dir, "server.log"))
		lastErr = fmt.Errorf("pg_ctl start: %v: %s\n%s", err, out, log)
	}
	return lastErr
}

// command runs one of the server's programs as the server's user, in the
// cluster's directory (the tests' own may be closed to that user).
func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
		cmd.Env = append(cmd.Env, "HOME="+c.Dir)
	}
	return cmd
}

// Stop stops the server and deletes its directory.
func (c *Cluster) Stop() error {
	var err error
	if c.Port != 0 { // -1: an orphan whose port is unknown; pg_ctl finds it in the data dir
		out, e := c.command("pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-m", "immediate", "-w", "stop").CombinedOutput()
		if e != nil {
			err = fmt.Errorf("pg_ctl stop: %v: %s", e, out)
		}
	}
	if e := os.RemoveAll(c.Dir); e != nil && err == nil {
		err = e
	}
	return err
}

// DSN returns a postgres:// URL for database db over TCP.
func (c *Cluster) DSN(db string) string {
	u := url.URL{Scheme: "postgres", User: url.User(c.User), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port)), Path: "/" + db}
	u.RawQuery = "sslmode=disable"
	return u.String()
}

// SocketDSN returns a postgres:// URL for database db over the unix socket.
func (c *Cluster) SocketDSN(db string) string {
	q := url.Values{"host": {c.Dir}, "port": {strconv.Itoa(c.Port)}, "user": {c.User}}
	return "postgres:///" + db + "?" + q.Encode()
}

// NewDatabase creates an empty database named after the test and returns
// its DSN. The database lives until the cluster is stopped.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%s", c.dbSeq.Add(1), sanitize(t.Name()))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.SocketDSN("postgres"))
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	return c.DSN(name)
}

// sanitize turns a test name into part of a database name (at most 63
// bytes in all).
func sanitize(s string) string {
	b := []byte(strings.ToLower(s))
	for i, ch := range b {
		if (ch < 'a' || ch > 'z') && (ch < '0' || ch > '9') {
			b[i] = '_'
		}
	}
	if len(b) > 40 {
		b = b[len(b)-40:]
	}
	return string(b)
}

// ownerFile names the pid of the test process that made a cluster.
const ownerFile = "owner.pid"

// reapOrphans stops and deletes the clusters of test processes that died
// without stopping them, so that a killed test run leaves no server behind
// for longer than the next run.
func reapOrphans(bin string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "harness9-pgtest-*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // being set up, or not ours
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || syscall.Kill(pid, 0) == nil || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue // its owner lives
		}
		c := &Cluster{Dir: dir, bin: bin, Port: -1}
		if fi, err := os.Stat(filepath.Join(dir, "data")); err == nil && os.Geteuid() == 0 {
			st := fi.Sys().(*syscall.Stat_t)
			c.cred = &syscall.Credential{Uid: st.Uid, Gid: st.Gid}
		}
		_ = c.Stop()
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// findBin returns the directory holding initdb, pg_ctl and postgres: the
// one initdb on PATH resolves to, else Debian's /usr/lib/postgresql/N/bin
// with the highest N. A directory counts only when all three are there.
func findBin() (string, error) {
	complete := func(dir string) bool {
		for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
				return false
			}
		}
		return true
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil && complete(filepath.Dir(real)) {
			return filepath.Dir(real), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if complete(d) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: no initdb, pg_ctl and postgres on PATH or in /usr/lib/postgresql/*/bin", ErrNotInstalled)
}
