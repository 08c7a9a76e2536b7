// Command planning-agent is a planning agent with one custom tool, built on
// harness9's library: it plans in Plan Mode (read-only: the engine withholds
// every tool that could change something), prints the plan, approves it and
// lets the engine execute it, with the todo list kept honest by the evidence
// gate.
//
//	go run ./examples/planning-agent            # offline, a scripted model
//	OPENAI_API_KEY=sk-... go run ./examples/planning-agent -model gpt-4.1 DIR
//
// The custom tool, count_lines, counts the lines of the Go files in the
// workdir. It is read-only, so Plan Mode may call it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path"
	"strings"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/openai"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

func main() {
	model := flag.String("model", "", "an OpenAI model (needs OPENAI_API_KEY); empty plays a scripted model")
	flag.Parse()
	dir := flag.Arg(0)
	if dir == "" {
		tmp, err := os.MkdirTemp("", "planning-agent-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		os.WriteFile(tmp+"/main.go", []byte("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"), 0o644)
		dir = tmp
	}
	if err := run(context.Background(), dir, *model); err != nil {
		log.Fatal(err)
	}
}

// countIn is count_lines's input; its JSON Schema is generated from it.
type countIn struct {
	Suffix string `json:"suffix" jsonschema:"file name suffix to count, e.g. .go"`
}

func run(ctx context.Context, dir, model string) error {
	ws, err := tool.NewWorkspace(dir) // every file tool is confined to dir
	if err != nil {
		return err
	}
	countLines := tool.New("count_lines", "Count the lines of the files whose name ends with suffix.",
		func(_ context.Context, in countIn) (tool.Result, error) {
			n, err := countFiles(ws, in.Suffix)
			if err != nil {
				return tool.Errorf("count_lines: %v", err), nil // the model sees this and can recover
			}
			return tool.Result{Output: fmt.Sprintf("%d lines in *%s files", n, in.Suffix)}, nil
		}, tool.AsReadOnly())

	var p llm.Provider = script()
	if model != "" {
		p = openai.New(openai.WithAPIKey(os.Getenv("OPENAI_API_KEY")))
	}
	eng, err := agent.New(p, agent.WithModel(model), agent.WithWorkspace(ws),
		agent.WithTools(append(builtin.All(ws), countLines)...), agent.WithMode(planning.ModePlan))
	if err != nil {
		return err
	}

	for ev := range eng.Run(ctx, "Add a LINES.txt file that records how many lines of Go this project has.") {
		show(ev)
	}
	if eng.Status() != planning.StatusAwaitingApproval {
		return fmt.Errorf("the model did not submit a plan (status %s)", eng.Status())
	}
	fmt.Println("-- approving the plan")
	for ev := range eng.Approve(ctx, planning.ModeDefault) { // ModeAutoEdit would confirm each edit
		show(ev)
	}
	b, err := os.ReadFile(dir + "/LINES.txt")
	if err != nil {
		return fmt.Errorf("the plan ran but LINES.txt is missing: %w", err)
	}
	fmt.Printf("-- LINES.txt: %s", b)
	return nil
}

func show(ev agent.Event) {
	switch e := ev.(type) {
	case agent.ToolCall:
		fmt.Printf("tool   %s %s\n", e.Name, e.Input)
	case agent.PlanSubmitted:
		fmt.Printf("plan   %s: %s\n", e.Plan.Title, strings.Join(e.Plan.Steps, "; "))
	case agent.Done:
		fmt.Printf("done   %s\n", e.Status)
	}
}

// countFiles counts lines through the workspace, so the deny list and the
// workdir's boundary hold for the custom tool too.
func countFiles(ws *tool.Workspace, suffix string) (int, error) {
	return countDir(ws, ".", suffix)
}

func countDir(ws *tool.Workspace, dir, suffix string) (int, error) {
	entries, err := ws.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		p := path.Join(dir, e.Name())
		switch {
		case e.IsDir() && e.Name() != ".git":
			m, err := countDir(ws, p, suffix)
			if err != nil {
				return 0, err
			}
			n += m
		case e.Type().IsRegular() && strings.HasSuffix(e.Name(), suffix):
			data, _, err := ws.ReadFile(p, 1<<20)
			if err != nil {
				return 0, err
			}
			n += strings.Count(string(data), "\n")
		}
	}
	return n, nil
}

// script is what a model would do, played offline: count, plan, execute.
func script() llm.Provider {
	todo := func(status string) map[string]any {
		return map[string]any{"todos": []map[string]string{{"id": "1", "content": "write LINES.txt", "status": status}}}
	}
	return scripted.New(
		scripted.Turn{Calls: scripted.Calls(scripted.Call("count_lines", countIn{Suffix: ".go"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{
			"title": "Record the line count", "content": "Count the Go lines, write them to LINES.txt.",
			"steps": []string{"write LINES.txt"}}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("todo_write", todo("in_progress")),
			scripted.Call("write_file", map[string]any{"path": "LINES.txt", "content": "5 lines of Go\n"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("todo_write", todo("completed")))},
		scripted.Turn{Text: "LINES.txt records 5 lines of Go."},
	)
}
