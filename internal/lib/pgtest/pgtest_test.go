//go:build unix

package pgtest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// TestNewDatabase connects to two fresh databases over TCP and checks that
// they are separate and that the server does not run as root.
func TestNewDatabase(t *testing.T) {
	ctx := context.Background()
	a, b := NewDatabase(t), NewDatabase(t)
	if a == b {
		t.Fatalf("two databases share the DSN %s", a)
	}
	conn, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatalf("connect %s: %v", a, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE only_in_a (x int)"); err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatalf("connect %s: %v", b, err)
	}
	defer other.Close(ctx)
	var n int
	if err := other.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n); err != nil || n != 0 {
		t.Errorf("database b sees a's table: n=%d err=%v", n, err)
	}
	// As root, the data directory belongs to the postgres user: the
	// server would refuse to start otherwise, and must never run as root.
	fi, err := os.Stat(filepath.Join(Shared(t).Dir, "data"))
	if err != nil {
		t.Fatal(err)
	}
	if owner := fi.Sys().(*syscall.Stat_t).Uid; os.Geteuid() == 0 && owner == 0 {
		t.Error("the cluster's data directory belongs to root")
	}
}

// orphanEnv makes the test binary start a cluster, print its directory and
// wait to be killed.
const orphanEnv = "HARNESS9_PGTEST_ORPHAN"

func init() {
	if os.Getenv(orphanEnv) == "" {
		return
	}
	c, err := Start()
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(c.Dir)
	select {}
}

// TestOrphanIsReaped: a test process killed before stopping its cluster
// leaves a running server; the next Start stops it and deletes its files.
func TestOrphanIsReaped(t *testing.T) {
	c := Shared(t) // skips or fails like the others without PostgreSQL
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), orphanEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	dir := strings.TrimSpace(line)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !strings.Contains(dir, "harness9-pgtest-") {
		t.Fatalf("the child said %q", line)
	}
	pidFile := filepath.Join(dir, "data", "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the orphan's server is not running: %v", err)
	}
	serverPID, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if serverPID <= 0 || syscall.Kill(serverPID, 0) != nil {
		t.Fatalf("the orphan's server (pid %d) is not alive", serverPID)
	}
	reapOrphans(c.bin)
	// pg_ctl stop -w returned once the server was gone.
	if running(serverPID) {
		t.Errorf("the orphan's server (pid %d) still runs", serverPID)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the orphan's directory survived: %v", err)
	}
	if _, err := os.Stat(c.Dir); err != nil {
		t.Errorf("the live cluster's directory was reaped: %v", err)
	}
}

// running reports whether pid is a live process: not gone, and not a
// zombie waiting for a parent (which init may take a moment to be) to
// reap it.
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) && syscall.Kill(pid, 0) == nil
	}
	// The state follows the parenthesised command name.
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}
