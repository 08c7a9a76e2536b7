// Command seedsessions writes n sessions, each with a few messages and a
// saved state (a todo list, a plan and a compaction summary, kilobytes of
// text as in real sessions), into a harness9 data directory, so that
// scripts/bench can time `harness9 sessions list` against a store of that
// size.
//
//	go run ./scripts/seedsessions -home DIR -n 1000 [-plan-bytes 3000] [-summary-bytes 6000]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/sqlite"
)

func main() {
	home := flag.String("home", "", "harness9 data directory (HARNESS9_HOME) to seed")
	n := flag.Int("n", 1000, "number of sessions")
	planBytes := flag.Int("plan-bytes", 3000, "size of each session's plan text")
	summaryBytes := flag.Int("summary-bytes", 6000, "size of each session's compaction summary")
	flag.Parse()
	if *home == "" {
		fmt.Fprintln(os.Stderr, "seedsessions: -home is required")
		os.Exit(2)
	}
	if err := seed(*home, *n, *planBytes, *summaryBytes); err != nil {
		fmt.Fprintln(os.Stderr, "seedsessions:", err)
		os.Exit(1)
	}
}

func seed(home string, n, planBytes, summaryBytes int) error {
	ctx := context.Background()
	st, err := sqlite.Open(session.DefaultPath(home))
	if err != nil {
		return err
	}
	defer st.Close()
	state := session.State{Status: planning.StatusExecuting, Todos: []planning.TodoItem{
		{ID: "1", Content: "read the handlers", Status: planning.TodoCompleted},
		{ID: "2", Content: "port them", Status: planning.TodoInProgress},
	}, Plan: &planning.Plan{Title: "Port the handlers", Content: text("1. Read each handler, then port it and its tests.\n", planBytes),
		Steps: []string{"read the handlers", "port them"}},
		Compaction: &session.Compaction{Summary: text("## Progress\nRead the handlers; ported the first ones.\n", summaryBytes), Covered: 4}}
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

// text is line repeated to n bytes.
func text(line string, n int) string {
	return strings.Repeat(line, n/len(line)+1)[:n]
}
