package agent_test

import (
	"context"
	"fmt"
	"os"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// Example_planningAgent builds a planning agent with one custom tool: it
// plans read-only, the plan is approved, and the engine executes it. With
// no store and no WithPlanFiles the engine keeps its session in memory and
// writes no file at all.
func Example_planningAgent() {
	dir, _ := os.MkdirTemp("", "harness9-plan")
	defer os.RemoveAll(dir)

	type cityIn struct {
		City string `json:"city" jsonschema:"The city to look up."`
	}
	weather := tool.New("weather", "Today's weather in a city.",
		func(_ context.Context, in cityIn) (tool.Result, error) {
			return tool.Result{Output: "sunny in " + in.City}, nil
		}, tool.AsReadOnly()) // read-only, so Plan mode may call it

	todo := func(status string) map[string]any {
		return map[string]any{"todos": []map[string]string{{"id": "1", "content": "report the weather", "status": status}}}
	}
	model := scripted.New( // a real program passes an OpenAI or Anthropic provider
		scripted.Turn{Calls: scripted.Calls(scripted.Call("weather", cityIn{City: "Oslo"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("submit_plan", map[string]any{
			"title": "Weather report", "content": "Look it up, then say it.", "steps": []string{"report the weather"}}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("weather", cityIn{City: "Oslo"}), scripted.Call("todo_write", todo("completed")))},
		scripted.Turn{Text: "It is sunny in Oslo."},
	)
	eng, _ := agent.New(model, agent.WithWorkdir(dir), agent.WithTools(weather), agent.WithMode(planning.ModePlan))

	for ev := range eng.Run(context.Background(), "What should I wear in Oslo?") {
		if p, ok := ev.(agent.PlanSubmitted); ok {
			fmt.Println("plan:", p.Plan.Title)
		}
	}
	for ev := range eng.Approve(context.Background(), planning.ModeDefault) {
		if d, ok := ev.(agent.Done); ok {
			fmt.Println("execution:", d.Status)
		}
	}
	files, _ := os.ReadDir(dir)
	fmt.Println("files written:", len(files))
	// Output:
	// plan: Weather report
	// execution: completed
	// files written: 0
}
