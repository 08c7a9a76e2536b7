// Command coding-agent is the agent harness9's CLI runs, assembled with
// package harness in a few lines: the file tools and bash in the kernel
// sandbox, the project's and the user's instructions (AGENTS.md), skills,
// sub-agents, web_fetch, compaction, permission rules, hooks, MCP servers,
// plan files and a SQLite store. It plans in Plan Mode, approves its own
// plan and executes it.
//
//	go run ./examples/coding-agent             # offline: a scripted model in a scratch project
//	OPENAI_API_KEY=sk-... go run ./examples/coding-agent -model gpt-4.1 DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/openai"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
)

func main() {
	model := flag.String("model", "", "an OpenAI model (needs OPENAI_API_KEY); empty plays a scripted model")
	mcpCmd := flag.String("mcp", "", "a stdio MCP server to connect, as a command line (e.g. \"npx -y @modelcontextprotocol/server-everything\")")
	flag.Parse()
	scratch, err := os.MkdirTemp("", "coding-agent-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(scratch)
	dir := flag.Arg(0)
	if dir == "" {
		dir = filepath.Join(scratch, "project")
		mustWrite(filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n") // plan files land in <dir>/.harness9 (tool.DataDirName)
		mustWrite(filepath.Join(dir, "AGENTS.md"), "Keep Go files gofmt-clean.\n")
		mustWrite(filepath.Join(dir, tool.DataDirName, "skills", "go-style", "SKILL.md"),
			"---\nname: go-style\ndescription: How Go code is written here.\n---\nTabs, short functions, errors wrapped with %w.\n")
	}
	var p llm.Provider = script()
	if *model != "" {
		p = openai.New(openai.WithAPIKey(os.Getenv("OPENAI_API_KEY")))
	}
	if err := run(context.Background(), p, *model, dir, filepath.Join(scratch, "data"), *mcpCmd); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, p llm.Provider, model, dir, data, mcpCmd string) error {
	store, err := sqlite.Open(filepath.Join(data, "harness9.db")) // sessions survive the process
	if err != nil {
		return err
	}
	defer store.Close()
	rules := permission.New(dir)
	if err := rules.Add(permission.Deny, "coding-agent", "bash(rm:*)", "write_file(secrets/**)"); err != nil {
		return err
	}
	home, _ := os.UserHomeDir() // a program knows its user; the library never looks
	opts := []harness.Option{
		harness.WithModel(model),
		harness.WithHome(home),        // ~/.ssh, ~/.aws … refused to every tool, bash included
		harness.WithDataDir(data),     // plan files outside git repos, the user's skills, agents, AGENTS.md
		harness.WithEnv(os.Environ()), // what bash, hooks and MCP servers start from, secrets scrubbed
		harness.WithStore(store),
		harness.WithPermissions(rules, nil),
		harness.WithWebFetch(),
		harness.WithHooks([]hook.Hook{{Event: hook.PostToolUse, Matcher: "write_file", Command: "gofmt -l . >&2 || true",
			Source: "coding-agent"}}),
	}
	if fields := strings.Fields(mcpCmd); len(fields) > 0 {
		opts = append(opts, harness.WithMCP(map[string]mcptool.ServerConfig{"tools": {Command: fields[0], Args: fields[1:]}}))
	}
	a, err := harness.New(ctx, p, dir, opts...)
	if err != nil {
		return err
	}
	defer a.Close()
	if sup := a.Sandbox().Support(); sup.Available {
		fmt.Println("sandbox  enforced by the kernel")
	} else {
		fmt.Println("sandbox  unavailable here:", sup.Reason)
	}
	for _, s := range a.Skills() {
		fmt.Println("skill   ", s.Name)
	}
	for _, d := range a.Subagents() {
		fmt.Println("agent   ", d.Name)
	}

	eng, err := a.NewEngine(agent.WithMode(planning.ModePlan))
	if err != nil {
		return err
	}
	for ev := range eng.Run(ctx, "Add a greeting program, hello.go, that prints hello.") {
		show(ev)
	}
	if eng.Status() != planning.StatusAwaitingApproval {
		return fmt.Errorf("no plan to approve (status %s)", eng.Status())
	}
	for ev := range eng.Approve(ctx, planning.ModeDefault) { // ModeAutoEdit would ask before each edit
		show(ev)
	}
	b, err := os.ReadFile(filepath.Join(dir, "hello.go"))
	if err != nil {
		return err
	}
	fmt.Printf("hello.go: %d bytes; session %s in %s\n", len(b), eng.SessionID(), filepath.Join(data, "harness9.db"))
	return nil
}

// show prints the events a reader cares about; a call that needs the
// user's permission is allowed once (a real program asks).
func show(ev agent.Event) {
	switch ev := ev.(type) {
	case agent.ToolCall:
		fmt.Printf("tool     %s %s\n", ev.Name, ev.Input)
	case agent.PlanSubmitted:
		fmt.Printf("plan     %s: %s\n", ev.Plan.Title, strings.Join(ev.Plan.Steps, "; "))
	case agent.Approved:
		fmt.Printf("approved %s\n", ev.TaskDir)
	case *agent.ApprovalRequest:
		fmt.Printf("ask      %s (%s)\n", ev.Call.Name, ev.Why)
		ev.Respond(agent.AllowOnce, "")
	case agent.Text:
		fmt.Printf("model    %s\n", ev.Text)
	case agent.Done:
		fmt.Printf("done     %s\n", ev.Status)
	}
}

// script plays a model that reads the project's skill, plans, then
// writes the file and marks its step done.
func script() *scripted.Provider {
	return scripted.New(
		scripted.Turn{Text: "Reading the house style first.",
			Calls: scripted.Calls(scripted.Call("use_skill", map[string]any{"name": "go-style"}))},
		scripted.Turn{Text: "Plan ready.", Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{
			"title": "Add a greeting", "content": "Write `hello.go`, a main package printing hello.",
			"steps": []string{"write hello.go"}}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("write_file", map[string]any{
			"path": "hello.go", "content": "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("todo_write", map[string]any{
			"todos": []map[string]any{{"id": "1", "content": "write hello.go", "status": "completed"}}}))},
		scripted.Turn{Text: "hello.go is written."},
	)
}

func mustWrite(path, content string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		log.Fatal(err)
	}
}
