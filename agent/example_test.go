package agent_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// Example builds a complete agent — the built-in tools sandboxed to a
// workspace, a SQLite session store, and the scripted provider standing in
// for a model — runs one task and prints what happened.
func Example() {
	dir, err := os.MkdirTemp("", "harness9-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ws, err := tool.NewWorkspace(dir)
	if err != nil {
		log.Fatal(err)
	}
	store, err := sqlite.Open(filepath.Join(dir, "sessions.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	// A real program would pass an OpenAI or Anthropic provider here.
	model := scripted.New(
		scripted.Turn{Text: "I'll write the file.", Calls: scripted.Calls(
			scripted.Call("write_file", map[string]string{"path": "hello.txt", "content": "Hello, harness9!\n"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]string{"path": "hello.txt"}))},
		scripted.Turn{Text: "hello.txt now greets harness9.", Match: scripted.LastToolResultContains("Hello, harness9!")},
	)
	eng, err := agent.New(model,
		agent.WithModel("demo"),
		agent.WithWorkdir(dir),
		agent.WithPlanFiles(dir),
		agent.WithStore(store),
		agent.WithTools(builtin.All(ws)...),
	)
	if err != nil {
		log.Fatal(err)
	}

	var final string
	for ev := range eng.Run(context.Background(), "Create hello.txt with a greeting.") {
		switch ev := ev.(type) {
		case agent.ToolCall:
			fmt.Println("tool:", ev.Name)
		case agent.Text:
			final = ev.Text
		case agent.Done:
			fmt.Println("status:", ev.Status)
		}
	}
	fmt.Println(final)
	msgs, _ := store.Messages(context.Background(), eng.SessionID())
	fmt.Println("stored messages:", len(msgs))
	// Output:
	// tool: write_file
	// tool: read_file
	// status: completed
	// hello.txt now greets harness9.
	// stored messages: 6
}
