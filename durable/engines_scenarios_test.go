//go:build unix

package durable_test

import (
	"fmt"
	"strings"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/compact"
	"github.com/harness9/harness9/internal/lib/compacttest"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

// The scenarios TestBothEnginesAgreeOnEveryPlanningScenario plays on both
// engines: those of the planning tests (agent/planning_test.go,
// agent/rules_test.go and this package's workflow tests), and the
// permission questions of "approve and confirm each edit", ask rules and
// always answers.

func todoItems(statuses ...planning.TodoStatus) []planning.TodoItem {
	var items []planning.TodoItem
	for i, s := range statuses {
		items = append(items, planning.TodoItem{ID: fmt.Sprint(i + 1), Content: fmt.Sprintf("step %c", 'a'+i), Status: s})
	}
	return items
}

func todoWrite(statuses ...planning.TodoStatus) llm.ToolCall {
	return scripted.Call(planning.TodoWriteName, map[string]any{"todos": todoItems(statuses...)})
}

func submitPlan(title string, steps ...string) llm.ToolCall {
	return scripted.Call(planning.SubmitPlanName, map[string]any{"title": title, "content": "## Approach\nStep by step.", "steps": steps})
}

const (
	pending    = planning.TodoPending
	inProgress = planning.TodoInProgress
	completed  = planning.TodoCompleted
	cancelled  = planning.TodoCancelled
)

var scenarios = []scenario{{
	name: "plan mode hides and refuses write tools",
	want: []agent.RunStatus{agent.RunCompleted},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(write("evil.txt", "pwned"), scripted.Call("bash", map[string]any{"command": "echo x > evil2.txt"}))},
		{Text: "I can only read here."},
	},
	actions: []action{run(planning.ModePlan, "change things")},
}, {
	name: "submit_plan ends the loop",
	want: []agent.RunStatus{agent.RunAwaitingApproval},
	turns: []scripted.Turn{
		{Text: "Here is my plan.", Calls: scripted.Calls(submitPlan("Add a greeting", "write hello.txt", "check it"),
			scripted.Call("read_file", map[string]any{"path": "README"}))},
		{Text: "this turn must never be played"},
	},
	actions: []action{run(planning.ModePlan, "plan a greeting")},
}, {
	name: "fallback plan from a todo list",
	want: []agent.RunStatus{agent.RunAwaitingApproval},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(todoWrite(pending, pending))},
		{Text: "Parser plan\n\nFirst the parser, then its tests."},
	},
	actions: []action{run(planning.ModePlan, "plan a parser")},
}, {
	name:    "no fallback plan without active todos",
	want:    []agent.RunStatus{agent.RunCompleted},
	turns:   []scripted.Turn{{Text: "Just an answer."}},
	actions: []action{run(planning.ModePlan, "what is this?")},
}, {
	name: "refining without a new submit keeps the plan",
	want: []agent.RunStatus{agent.RunAwaitingApproval, agent.RunAwaitingApproval},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(submitPlan("Parser plan", "step a", "step b"))},
		{Calls: scripted.Calls(todoWrite(pending, pending, pending))},
		{Text: "Still the same plan, with docs added."},
	},
	actions: []action{run(planning.ModePlan, "plan a parser"), review(planning.ReviewRefine, "also document it")},
}, {
	name: "refine with feedback, then approve",
	want: []agent.RunStatus{agent.RunAwaitingApproval, agent.RunAwaitingApproval, agent.RunCompleted},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(submitPlan("Two files", "step a", "step b"))},
		{Calls: scripted.Calls(submitPlan("One file", "step a")), Match: scripted.LastUserContains("smaller")},
		{Calls: scripted.Calls(write("a.txt", "A"), todoWrite(completed))},
		{Text: "Done."},
	},
	actions: []action{run(planning.ModePlan, "write two files"), review(planning.ReviewRefine, "make it smaller"),
		review(planning.ReviewApprove, "")},
}, {
	name: "approve executes to completion",
	want: []agent.RunStatus{agent.RunAwaitingApproval, agent.RunCompleted},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(submitPlan("Greeting files", "step a", "step b"))},
		{Calls: scripted.Calls(todoWrite(inProgress, pending)), Match: scripted.LastUserContains(planning.ExecPrompt[:20])},
		{Calls: scripted.Calls(write("a.txt", "a"))},
		{Calls: scripted.Calls(todoWrite(completed, inProgress))},
		{Calls: scripted.Calls(write("b.txt", "b"))},
		{Calls: scripted.Calls(todoWrite(completed, completed))},
		{Text: "Both files exist."},
	},
	actions: []action{run(planning.ModePlan, "plan the greeting files"), review(planning.ReviewApprove, "")},
}, {
	name: "execution stalls, then continues to the end",
	want: []agent.RunStatus{agent.RunAwaitingApproval, agent.RunStalled, agent.RunCompleted},
	turns: append(append([]scripted.Turn{{Calls: scripted.Calls(submitPlan("Four steps", "step a", "step b", "step c", "step d"))}},
		flips()...),
		scripted.Turn{Calls: scripted.Calls(scripted.Call("list_files", nil)), Match: scripted.LastUserContains(planning.ExecContinuePrompt[:20])},
		scripted.Turn{Calls: scripted.Calls(todoWrite(completed, cancelled, cancelled, cancelled))},
		scripted.Turn{Text: "done"},
	),
	actions: []action{run(planning.ModePlan, "plan four steps"), review(planning.ReviewApprove, ""), continueIt},
}, {
	name: "a lower stall threshold stops sooner",
	want: []agent.RunStatus{agent.RunAwaitingApproval, agent.RunStalled},
	turns: append([]scripted.Turn{{Calls: scripted.Calls(submitPlan("Four steps", "step a", "step b", "step c", "step d"))}},
		flips()...),
	actions: []action{run(planning.ModePlan, "plan four steps"), review(planning.ReviewApproveConfirm, "")},
	stall:   2,
}, {
	name:    "cancel the plan",
	want:    []agent.RunStatus{agent.RunAwaitingApproval, agent.RunCompleted},
	turns:   []scripted.Turn{{Calls: scripted.Calls(submitPlan("Two", "step a", "step b"))}},
	actions: []action{run(planning.ModePlan, "plan two"), review(planning.ReviewCancel, "")},
}, {
	name: "a plan left awaiting approval is reviewed later",
	want: []agent.RunStatus{agent.RunAwaitingApproval, agent.RunCompleted},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(submitPlan("One", "step a"))},
		{Calls: scripted.Calls(write("a.txt", "A"))},
		{Calls: scripted.Calls(todoWrite(completed))},
		{Text: "ok"},
	},
	actions: []action{run(planning.ModePlan, "plan one"), reviewLater(planning.ReviewApprove)},
}, {
	name: "evidence gate across a continuation run",
	want: []agent.RunStatus{agent.RunCompleted, agent.RunCompleted},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(todoWrite(inProgress))},
		{Text: "started"},
		{Calls: scripted.Calls(todoWrite(completed))},
		{Calls: scripted.Calls(write("a.txt", "a"))},
		{Calls: scripted.Calls(todoWrite(completed))},
		{Text: "done"},
	},
	actions: []action{run(planning.ModeDefault, "start"), run(planning.ModeDefault, "continue")},
}, {
	name: "a fallback after a finished plan does not reuse its title",
	want: []agent.RunStatus{agent.RunAwaitingApproval, agent.RunCompleted, agent.RunAwaitingApproval},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(submitPlan("Parser plan", "step a"))},
		{Calls: scripted.Calls(write("parser.go", "package p"))},
		{Calls: scripted.Calls(todoWrite(completed))},
		{Text: "Parser written."},
		{Calls: scripted.Calls(todoWrite(pending))},
		{Text: "Cache plan\nAdd an LRU cache in front of the parser."},
	},
	actions: []action{run(planning.ModePlan, "plan a parser"), review(planning.ReviewApprove, ""), run(planning.ModePlan, "plan a cache")},
}, {
	name: "the turn limit",
	want: []agent.RunStatus{agent.RunMaxTurns},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(scripted.Call("list_files", nil))},
		{Calls: scripted.Calls(scripted.Call("list_files", nil))},
		{Calls: scripted.Calls(scripted.Call("list_files", nil))},
	},
	actions: []action{run(planning.ModeDefault, "look around")},
	turnCap: 2,
}, {
	name: "hooks: a blocked stop goes on, a blocked prompt is not sent",
	want: []agent.RunStatus{agent.RunCompleted, agent.RunError},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(write("a.txt", "A"))},
		{Text: "Done?"},
		{Text: "Tests pass; done."},
	},
	actions: []action{run(planning.ModeDefault, "write a file"), run(planning.ModeDefault, "a forbidden prompt")},
	hooks:   true,
}, {
	name: "compaction before a model call, decided from the provider's usage",
	want: []agent.RunStatus{agent.RunCompleted},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(todoWrite(inProgress)), Usage: llm.Usage{InputTokens: 1000}},
		listing(2000), listing(3000), listing(9000),
		{Text: "done after compaction", Usage: llm.Usage{InputTokens: 3000},
			Match: func(r llm.Request) bool { return strings.HasPrefix(r.Messages[0].Content, compact.SummaryHeader) }},
	},
	actions: []action{run(planning.ModeDefault, "list files a lot")},
	// A window the tools' definitions (about 2,800 tokens) fit: in a
	// smaller one the run ends at once (compact.ErrFixedPartTooLarge).
	window: 10000,
}, {
	// Issue 33: the local engine asked for a summary on nearly every turn
	// (17 here) and the durable one for fewer. Both now ask for the same
	// 2, and shorten old outputs on the other turns.
	name:        "compaction in an 8,000-token window half filled by the fixed part: twenty large reads",
	want:        []agent.RunStatus{agent.RunCompleted},
	turns:       compacttest.Turns(),
	actions:     []action{run(planning.ModeDefault, compacttest.Prompt)},
	window:      compacttest.Window,
	system:      compacttest.System(),
	setup:       compacttest.WriteFiles,
	summaries:   compacttest.Summariser,
	compactWith: []compact.Option{},
}, {
	name:    "a window the system prompt and tools alone fill: one error, no model call",
	want:    []agent.RunStatus{agent.RunError},
	turns:   []scripted.Turn{{Text: "never played"}},
	actions: []action{run(planning.ModeDefault, "hello")},
	window:  2000,
}}

var askScenarios = []scenario{{
	name: "approve and confirm each edit: allow once, deny with a reason, always, across continue-as-new",
	want: []agent.RunStatus{agent.RunAwaitingApproval, agent.RunCompleted},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(submitPlan("Three files", "step a", "step b"))},
		{Calls: scripted.Calls(write("a.txt", "A"), write("b.txt", "B"), write("c.txt", "C"), todoWrite(completed, inProgress)),
			Match: scripted.LastUserContains(planning.ExecPrompt[:20])},
		{Text: "a and c written; b was refused."},
		{Calls: scripted.Calls(write("c.txt", "C2"), write("d.txt", "D"), todoWrite(completed, completed)),
			Match: scripted.LastUserContains(planning.ExecContinuePrompt[:20])},
		{Text: "Done."},
	},
	actions: []action{run(planning.ModePlan, "plan three files"), review(planning.ReviewApproveConfirm, "")},
	// The second write of c.txt, in the run the execution continued as,
	// is covered by the always answer; d.txt is asked there.
	answers:       []reply{{"allow", ""}, {"deny", "b is not needed"}, {"always", ""}, {"allow", ""}},
	continueAfter: 3,
}, {
	name: "an ask rule in Default mode, answered no",
	want: []agent.RunStatus{agent.RunCompleted},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(write("notes/x.txt", "x"), write("other.txt", "o"))},
		{Text: "Wrote other.txt only."},
	},
	actions: []action{run(planning.ModeDefault, "write two files")},
	answers: []reply{{"deny", "keep notes/ untouched"}},
	ask:     []string{"write_file(notes/**)"},
}, {
	name: "always for a command no rule can cover allows the tool for the session, on the next step's engine too",
	want: []agent.RunStatus{agent.RunCompleted},
	turns: []scripted.Turn{
		{Calls: scripted.Calls(scripted.Call("bash", map[string]any{"command": "echo 1 > one.txt"}))},
		{Calls: scripted.Calls(scripted.Call("bash", map[string]any{"command": "echo 2 > two.txt"}))},
		{Text: "Both written."},
	},
	actions: []action{run(planning.ModeAutoEdit, "write with bash")},
	answers: []reply{{"always", ""}},
}}

func init() { scenarios = append(scenarios, askScenarios...) }

// listing is a turn that lists files, with a long text, and whose provider
// reports the context at in tokens.
func listing(in int) scripted.Turn {
	return scripted.Turn{Text: strings.Repeat("lorem ipsum dolor sit amet ", 20), Calls: scripted.Calls(scripted.Call("list_files", nil)),
		Usage: llm.Usage{InputTokens: in, OutputTokens: 10}}
}

// flips are four execution rounds that each move one more item to
// in_progress and complete none.
func flips() []scripted.Turn {
	var turns []scripted.Turn
	for n := 1; n <= 4; n++ {
		st := []planning.TodoStatus{pending, pending, pending, pending}
		for i := range n {
			st[i] = inProgress
		}
		turns = append(turns, scripted.Turn{Calls: scripted.Calls(todoWrite(st...))}, scripted.Turn{Text: "working on it"})
	}
	return turns
}
