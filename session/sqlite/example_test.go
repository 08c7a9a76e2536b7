package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
)

// A session store on a SQLite file: sessions, each message as it happens,
// and the planning state, all back after the process ends. Pass it to an
// engine with agent.WithStore.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "store")
	defer os.RemoveAll(dir)
	ctx := context.Background()

	store, err := sqlite.Open(filepath.Join(dir, "harness9.db")) // created and migrated
	if err != nil {
		fmt.Println(err)
		return
	}
	s := &session.Session{Workdir: dir, Model: "openai/gpt-4.1", Title: "demo"}
	_ = store.Create(ctx, s)
	_ = store.AppendMessage(ctx, s.ID, llm.Message{Role: llm.RoleUser, Content: "hello"})
	store.Close()

	store, _ = sqlite.Open(filepath.Join(dir, "harness9.db")) // another process, later
	defer store.Close()
	msgs, _ := store.Messages(ctx, s.ID)
	got, _ := store.Get(ctx, s.ID[:6]) // a unique prefix finds it
	fmt.Println(got.Title, len(msgs), msgs[0].Content)
	// Output: demo 1 hello
}
