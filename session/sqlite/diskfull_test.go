package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
)

// A database that cannot grow (max_page_count stands in for a full disk:
// SQLite answers both with SQLITE_FULL) refuses the append that does not
// fit with ErrDiskFull naming the file; nothing of it is stored, the
// messages before it are intact, and appends work again once there is
// room.
func TestDiskFullRefusesTheWholeAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	s := openTest(t, path)
	ctx := context.Background()
	s.db.SetMaxOpenConns(1) // the pragma below holds for one connection
	sess := &session.Session{Workdir: "/w"}
	if err := s.Create(ctx, sess); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := s.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA max_page_count = "+strconv.Itoa(pages+8)); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 3000)
	stored := 0
	var err error
	for range 100 {
		if err = s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Content: big}); err != nil {
			break
		}
		stored++
	}
	if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "free some space") {
		t.Fatalf("append on a full database: %v; want ErrDiskFull naming %s and the fix", err, path)
	}
	msgs, err := s.Messages(ctx, sess.ID)
	if err != nil || len(msgs) != stored {
		t.Fatalf("after the refused append: %d messages (%v), want the %d stored before", len(msgs), err, stored)
	}
	if got, _ := s.Get(ctx, sess.ID); got.MessageCount != stored {
		t.Fatalf("message count %d, want %d: the refused append was half stored", got.MessageCount, stored)
	}
	if _, err := s.db.ExecContext(ctx, "PRAGMA max_page_count = 1000000"); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(ctx, sess.ID, llm.Message{Role: llm.RoleUser, Content: "room again"}); err != nil {
		t.Fatalf("append after room came back: %v", err)
	}
	if msgs, _ := s.Messages(ctx, sess.ID); len(msgs) != stored+1 || msgs[stored].Content != "room again" {
		t.Fatalf("history after room came back: %d messages", len(msgs))
	}
}
