package pgtest

import (
	"context"
	"os"
	"path/filepath"
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
