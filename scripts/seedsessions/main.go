// Command seedsessions writes n sessions, each with a few messages and a
// saved todo list, into a harness9 data directory, so that scripts/bench
// can time `harness9 sessions list` against a store of that size.
//
//	go run ./scripts/seedsessions -home DIR -n 1000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
)

func main() {
	home := flag.String("home", "", "harness9 data directory (HARNESS9_HOME) to seed")
	n := flag.Int("n", 1000, "number of sessions")
	flag.Parse()
	if *home == "" {
		fmt.Fprintln(os.Stderr, "seedsessions: -home is required")
		os.Exit(2)
	}
	if err := seed(*home, *n); err != nil {
		fmt.Fprintln(os.Stderr, "seedsessions:", err)
		os.Exit(1)
	}
}

func seed(home string, n int) error {
	ctx := context.Background()
	st, err := sqlite.Open(session.DefaultPath(home))
	if err != nil {
		return err
	}
	defer st.Close()
	state := session.State{Status: planning.StatusExecuting, Todos: []planning.TodoItem{
		{ID: "1", Content: "read the handlers", Status: planning.TodoCompleted},
		{ID: "2", Content: "port them", Status: planning.TodoInProgress},
	}}
	for i := range n {
		s := session.Session{Workdir: "/bench", Model: "openai/gpt-4o", Title: fmt.Sprintf("port handler %d", i)}
		if err := st.Create(ctx, &s); err != nil {
			return err
		}
		msgs := []llm.Message{
			{Role: llm.RoleUser, Content: "port the handler"},
			{Role: llm.RoleAssistant, Content: "Reading it.", ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"handler.go"}`)}}},
			{Role: llm.RoleTool, ToolCallID: "call_1", Name: "read_file", Content: "package handler"},
			{Role: llm.RoleAssistant, Content: "Done."},
		}
		for _, m := range msgs {
			if err := st.AppendMessage(ctx, s.ID, m); err != nil {
				return err
			}
		}
		if err := st.SaveState(ctx, s.ID, state); err != nil {
			return err
		}
	}
	return nil
}
