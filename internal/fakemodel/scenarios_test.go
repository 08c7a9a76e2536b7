package fakemodel_test

import (
	"context"
	"errors"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/fakemodel"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/anthropic"
	"github.com/harness9/harness9/llm/openai"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// reasoningWires are the wires whose reasoning must survive the planning
// workflow's tool calls: OpenAI's Responses API with a reasoning effort
// (encrypted reasoning items) and Anthropic's Messages with extended
// thinking (signed thinking blocks).
var reasoningWires = []struct {
	name string
	new  func(url string) llm.Provider
}{
	{"responses", func(url string) llm.Provider {
		return openai.New(openai.WithAPIKey("k"), openai.WithBaseURL(url+"/v1"), openai.WithAPI(openai.APIResponses))
	}},
	{"anthropic thinking", func(url string) llm.Provider {
		return anthropic.New(anthropic.WithAPIKey("k"), anthropic.WithBaseURL(url))
	}},
}

func todos(statuses ...planning.TodoStatus) llm.ToolCall {
	var items []planning.TodoItem
	for i, s := range statuses {
		items = append(items, planning.TodoItem{ID: string(rune('1' + i)), Content: "step " + string(rune('a'+i)), Status: s})
	}
	return scripted.Call(planning.TodoWriteName, map[string]any{"todos": items})
}

func submitPlan(steps ...string) llm.ToolCall {
	return scripted.Call(planning.SubmitPlanName, map[string]any{"title": "The plan", "content": "## Approach\nStep by step.", "steps": steps})
}

func write(path string) llm.ToolCall {
	return scripted.Call("write_file", map[string]any{"path": path, "content": "x\n"})
}

// TestPlanningScenariosWithReasoning plays the planning workflow's
// scenarios — the plan gate (read-only Plan Mode), submit_plan ending the
// loop, execution after approval to the end, the stall stop — through the
// real providers on each reasoning wire, with reasoning asked for on every
// call.
func TestPlanningScenariosWithReasoning(t *testing.T) {
	const (
		pending    = planning.TodoPending
		inProgress = planning.TodoInProgress
		completed  = planning.TodoCompleted
	)
	flips := func() []scripted.Turn {
		var turns []scripted.Turn
		for n := 1; n <= 4; n++ {
			st := []planning.TodoStatus{pending, pending, pending, pending}
			for i := range n {
				st[i] = inProgress
			}
			turns = append(turns, scripted.Turn{Calls: scripted.Calls(todos(st...))}, scripted.Turn{Text: "working on it"})
		}
		return turns
	}
	scenarios := []struct {
		name    string
		turns   []scripted.Turn
		approve bool // approve the plan the run submits
		want    []agent.RunStatus
		left    int      // turns never played
		files   []string // in the workdir at the end
		absent  []string
	}{{
		name: "plan mode refuses write tools",
		turns: []scripted.Turn{
			{Reasoning: "I should write it.", Calls: scripted.Calls(write("evil.txt"))},
			{Text: "I can only read here."},
		},
		want:   []agent.RunStatus{agent.RunCompleted},
		absent: []string{"evil.txt"},
	}, {
		name: "submit_plan ends the loop",
		turns: []scripted.Turn{
			{Text: "Here is my plan.", Calls: scripted.Calls(submitPlan("write a.txt"), scripted.Call("list_files", nil))},
			{Text: "this turn must never be played"},
		},
		want: []agent.RunStatus{agent.RunAwaitingApproval},
		left: 1,
	}, {
		name: "approved plan runs to the end",
		turns: []scripted.Turn{
			{Calls: scripted.Calls(submitPlan("write a.txt", "write b.txt"))},
			{Calls: scripted.Calls(todos(inProgress, pending), write("a.txt"))},
			{Calls: scripted.Calls(todos(completed, inProgress), write("b.txt"))},
			{Calls: scripted.Calls(todos(completed, completed))},
			{Text: "All done."},
		},
		approve: true,
		want:    []agent.RunStatus{agent.RunAwaitingApproval, agent.RunCompleted},
		files:   []string{"a.txt", "b.txt"},
	}, {
		name:    "execution without progress stalls",
		turns:   append([]scripted.Turn{{Calls: scripted.Calls(submitPlan("one", "two", "three", "four"))}}, flips()...),
		approve: true,
		want:    []agent.RunStatus{agent.RunAwaitingApproval, agent.RunStalled},
		left:    2, // the fourth round never runs
	}}
	for _, wire := range reasoningWires {
		for _, sc := range scenarios {
			t.Run(wire.name+"/"+sc.name, func(t *testing.T) {
				replay := fakemodel.NewReplay(sc.turns...)
				srv := httptest.NewServer(replay)
				defer srv.Close()
				dir := t.TempDir()
				ws, err := tool.NewWorkspace(dir)
				if err != nil {
					t.Fatal(err)
				}
				eng, err := agent.New(wire.new(srv.URL), agent.WithModel("m"), agent.WithWorkspace(ws), agent.WithEffort(llm.EffortMedium),
					agent.WithTools(builtin.All(ws)...), agent.WithMode(planning.ModePlan))
				if err != nil {
					t.Fatal(err)
				}
				var got []agent.RunStatus
				play := func(seq func(func(agent.Event) bool)) {
					status := agent.RunStatus("(no done)")
					for ev := range seq {
						if d, ok := ev.(agent.Done); ok {
							status = d.Status
							if d.Err != nil {
								t.Logf("run error: %v", d.Err)
							}
						}
					}
					got = append(got, status)
				}
				ctx := context.Background()
				play(eng.Run(ctx, "do the task"))
				if sc.approve {
					play(eng.Approve(ctx, planning.ModeDefault))
				}
				if len(got) != len(sc.want) {
					t.Fatalf("runs ended %v, want %v", got, sc.want)
				}
				for i := range got {
					if got[i] != sc.want[i] {
						t.Fatalf("runs ended %v, want %v", got, sc.want)
					}
				}
				if n := replay.Remaining(); n != sc.left {
					t.Errorf("%d turns left, want %d", n, sc.left)
				}
				if played := len(sc.turns) - sc.left; replay.Reasoned() != played {
					t.Errorf("%d of %d turns reasoned", replay.Reasoned(), played)
				}
				for _, f := range sc.files {
					if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
						t.Errorf("%s: %v", f, err)
					}
				}
				for _, f := range sc.absent {
					if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("%s was written in Plan Mode (%v)", f, err)
					}
				}
			})
		}
	}
}
