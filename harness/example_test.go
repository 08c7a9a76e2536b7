package harness_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

// New assembles what the harness9 command assembles — workspace, kernel
// sandbox, built-in tools, skills, AGENTS.md, hooks, MCP servers,
// sub-agents, compaction, permissions and plan files — for one workdir.
// Here a scripted model plans in Plan Mode, the plan is approved, and the
// file it writes lands in the workdir.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "harness-example-")
	defer os.RemoveAll(dir)
	p := scripted.New(
		scripted.Turn{Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{
			"title": "Greet", "content": "Write `hello.txt`.", "steps": []string{"write hello.txt"}}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("write_file", map[string]any{
			"path": "hello.txt", "content": "hello\n"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("todo_write", map[string]any{
			"todos": []map[string]any{{"id": "1", "content": "write hello.txt", "status": "completed"}}}))},
		scripted.Turn{Text: "Wrote hello.txt."},
	)
	a, err := harness.New(context.Background(), p, dir, harness.WithDataDir(filepath.Join(dir, "data")))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	eng, err := a.NewEngine(agent.WithMode(planning.ModePlan))
	if err != nil {
		fmt.Println(err)
		return
	}
	for range eng.Run(context.Background(), "Say hello in a file.") {
	}
	fmt.Println(eng.Status())
	for range eng.Approve(context.Background(), planning.ModeDefault) {
	}
	b, _ := os.ReadFile(filepath.Join(dir, "hello.txt"))
	fmt.Printf("%s", b)
	// Output:
	// awaiting_approval
	// hello
}
