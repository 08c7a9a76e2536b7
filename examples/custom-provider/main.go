// Command custom-provider brings its own model to harness9: any type with
// Name and Stream is an llm.Provider. This one is a tiny rule-based "model"
// that lists the workdir and then answers from what the tool returned; a real
// one would call a model server. The engine, tools, permissions and store
// are harness9's, unchanged.
//
//	go run ./examples/custom-provider [DIR]
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log"
	"os"
	"strings"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// lister is the provider. It must be safe for concurrent use (it holds no
// state) and stream a whole assistant message as chunks ending in ChunkStop.
type lister struct{}

func (lister) Name() string { return "lister" }

func (lister) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role == llm.RoleUser {
			// First turn: ask the harness to run a tool. The call must name a
			// tool the request offers; the engine refuses any other.
			if !offers(req, "list_files") {
				yield(llm.Chunk{Kind: llm.ChunkText, Text: "I have no way to look at the files."}, nil)
				yield(llm.Chunk{Kind: llm.ChunkStop, StopReason: llm.StopEndTurn}, nil)
				return
			}
			call := &llm.ToolCall{ID: "call_1", Name: "list_files", Input: json.RawMessage(`{"path": "."}`)}
			if !yield(llm.Chunk{Kind: llm.ChunkText, Text: "Let me look."}, nil) ||
				!yield(llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: call}, nil) {
				return // the consumer stopped reading: release whatever the call holds
			}
			yield(llm.Chunk{Kind: llm.ChunkStop, StopReason: llm.StopToolUse}, nil)
			return
		}
		// Second turn: the last message is the tool's result; answer from it.
		lines := strings.Count(strings.TrimSpace(last.Content), "\n") + 1
		yield(llm.Chunk{Kind: llm.ChunkText, Text: fmt.Sprintf("The workdir holds %d entries.", lines)}, nil)
		yield(llm.Chunk{Kind: llm.ChunkUsage, Usage: &llm.Usage{InputTokens: 50, OutputTokens: 8}}, nil)
		yield(llm.Chunk{Kind: llm.ChunkStop, StopReason: llm.StopEndTurn}, nil)
	}
}

func offers(req llm.Request, name string) bool {
	for _, t := range req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

func main() {
	dir := "."
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	ws, err := tool.NewWorkspace(dir)
	if err != nil {
		log.Fatal(err)
	}
	eng, err := agent.New(lister{}, agent.WithWorkspace(ws), agent.WithTools(builtin.All(ws)...))
	if err != nil {
		log.Fatal(err)
	}
	for ev := range eng.Run(context.Background(), "How many entries does this directory have?") {
		switch e := ev.(type) {
		case agent.ToolCall:
			fmt.Printf("tool   %s %s\n", e.Name, e.Input)
		case agent.Text:
			fmt.Printf("model  %s\n", e.Text)
		case agent.Done:
			fmt.Printf("done   %s\n", e.Status)
			if e.Status != agent.RunCompleted {
				os.Exit(1)
			}
		}
	}
}
