package service_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/service"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/memstore"
)

// Assembled engines have what harness.New gives (the project's AGENTS.md
// in the system prompt), hold their session's lock until closed, and a
// session is resumed by id.
func TestAssembledEnginesHoldTheirSession(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("PROJECT-RULE"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(scripted.Turn{Text: "one"}, scripted.Turn{Text: "two"})
	store := memstore.New()
	factory := service.Assembled(p, session.LockDir(home), harness.WithStore(store), harness.WithoutSandbox())
	eng, closer, err := factory(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	for range eng.Run(context.Background(), "hi") {
	}
	id := eng.SessionID()
	if id == "" || !strings.Contains(p.Requests()[0].System, "PROJECT-RULE") {
		t.Fatalf("session %q, system %q", id, p.Requests()[0].System)
	}
	if _, _, err := factory(context.Background(), dir, id); !errors.Is(err, session.ErrBusy) {
		t.Fatalf("a second engine on the held session: %v, want busy", err)
	}
	if err := closer.Close(); err != nil {
		t.Fatal(err)
	}
	again, closer, err := factory(context.Background(), dir, id)
	if err != nil {
		t.Fatalf("resume after close: %v", err)
	}
	defer closer.Close()
	if len(again.History()) != 2 {
		t.Errorf("resumed history = %+v", again.History())
	}
}
