package demo

import (
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// Steps are the plan's steps; submit_plan turns them into todos "1".."3".
var Steps = []string{
	"Write go.mod and main.go with a greeting function",
	"Add a unit test for the greeting",
	"Write a README with build and run instructions",
}

// Files are what the executed plan writes, by path.
var Files = map[string]string{
	"go.mod": "module example.com/greeter\n\ngo 1.22\n",
	"main.go": `// Command greeter says hello.
package main

import (
	"fmt"
	"os"
)

// greeting returns the greeting for name ("world" when empty).
func greeting(name string) string {
	if name == "" {
		name = "world"
	}
	return "Hello, " + name + "!"
}

func main() {
	name := ""
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	fmt.Println(greeting(name))
}
`,
	"main_test.go": `package main

import "testing"

func TestGreeting(t *testing.T) {
	for name, want := range map[string]string{"": "Hello, world!", "Ada": "Hello, Ada!"} {
		if got := greeting(name); got != want {
			t.Errorf("greeting(%q) = %q, want %q", name, got, want)
		}
	}
}
`,
	"README.md": "# greeter\n\nA tiny greeter, written by harness9's scripted demo.\n\n" +
		"```sh\ngo build -o greeter .\n./greeter        # Hello, world!\n./greeter Ada    # Hello, Ada!\ngo test ./...\n```\n",
}

const planContent = `## Goal
A small Go command that greets by name, as NOTES.md asks.

## Approach
1. ` + "`go.mod`" + ` and ` + "`main.go`" + `: a ` + "`greeting(name)`" + ` function and a main that prints it.
2. ` + "`main_test.go`" + `: a table test for the default and a given name.
3. ` + "`README.md`" + `: how to build, run and test.

Nothing outside this directory changes.`

// todos is the todo_write input with step i (0-based) in state s and the
// steps before it completed.
func todos(current int, s string) map[string]any {
	var items []map[string]any
	for i, step := range Steps {
		status := "pending"
		switch {
		case i < current:
			status = "completed"
		case i == current:
			status = s
		}
		items = append(items, map[string]any{"id": itoa(i + 1), "content": step, "status": status})
	}
	return map[string]any{"todos": items}
}

func itoa(n int) string { return string(rune('0' + n)) }

func write(path string) llm.ToolCall {
	return scripted.Call("write_file", map[string]any{"path": path, "content": Files[path]})
}

// Turns is the script, one turn per model call. The first three play in
// Plan Mode (explore, read, submit_plan); the rest execute the approved
// plan: each step goes in_progress, writes its files, and is completed by
// the next todo_write — after real work, so the evidence gate is satisfied.
func Turns() []scripted.Turn {
	return []scripted.Turn{
		{Name: "explore", Text: "I'll start by looking at what is in the project.",
			Calls: scripted.Calls(scripted.Call("list_files", map[string]any{"path": "."}))},
		{Name: "read notes", Text: "There is a NOTES.md; let me read it.",
			Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "NOTES.md"}))},
		{Name: "submit plan", Text: "I have what I need. Here is my plan.",
			Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{
				"title": "Greeter in Go", "content": planContent, "steps": Steps}))},
		{Name: "step 1", Text: "Starting with the program itself.",
			Calls: scripted.Calls(scripted.Call("todo_write", todos(0, "in_progress")), write("go.mod"), write("main.go"))},
		{Name: "step 2", Text: "main.go is written. Now the test.",
			Calls: scripted.Calls(scripted.Call("todo_write", todos(1, "in_progress")), write("main_test.go"))},
		{Name: "step 3", Text: "The test is in place. Last, the README.",
			Calls: scripted.Calls(scripted.Call("todo_write", todos(2, "in_progress")), write("README.md"))},
		{Name: "finish", Text: "README written; marking the last step done.",
			Calls: scripted.Calls(scripted.Call("todo_write", todos(3, "")))},
		{Name: "summary", Text: "All three steps are done:\n\n- `main.go` with `greeting(name)`\n- `main_test.go` testing it\n- `README.md` with build and run instructions\n\nTry `go run . Ada`."},
	}
}
