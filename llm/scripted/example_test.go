package scripted_test

import (
	"context"
	"fmt"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// A scripted provider plays turns in order instead of calling a model, and
// records every request, so a test can drive an engine deterministically and
// then check what the model was sent.
func ExampleNew() {
	p := scripted.New(
		scripted.Turn{Text: "Reading it.", Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "go.mod"}))},
		scripted.Turn{Text: "It is a Go module."},
	)
	for range 2 {
		var acc llm.Accumulator
		for c, err := range p.Stream(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "what is this?"}}}) {
			if err != nil {
				fmt.Println(err)
				return
			}
			acc.Add(c)
		}
		r := acc.Response()
		fmt.Println(r.Message.Content, len(r.Message.ToolCalls), r.StopReason)
	}
	fmt.Println(len(p.Requests()), "requests recorded")
	// Output:
	// Reading it. 1 tool_use
	// It is a Go module. 0 end_turn
	// 2 requests recorded
}
