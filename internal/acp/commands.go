package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/planning"
)

// builtin is a slash command the agent carries out itself. They are the
// TUI's commands that make sense in an editor, under the same names; the
// custom commands (Runtime.Commands) are prompts.
type builtin struct {
	name, hint, about string
	run               func(t *turn, arg string, in promptInput) (sdk.StopReason, error)
}

var builtins []builtin

func init() {
	// Filled here: the commands refer to the table (/help lists it).
	builtins = []builtin{
		{"plan", "task (optional)", "switch to Plan mode, and plan the task if one is given", (*turn).cmdPlan},
		{"code", "", "leave Plan mode without approving a plan", (*turn).cmdCode},
		{"review", "", "review the plan awaiting approval", (*turn).cmdReview},
		{"continue", "", "go on executing the approved plan that stopped", (*turn).cmdContinue},
		{"compact", "", "summarise older history now", (*turn).cmdCompact},
		{"todos", "", "show the todo list", (*turn).cmdTodos},
		{"help", "", "list the commands", (*turn).cmdHelp},
	}
}

// findBuiltin returns the built-in command text calls and its argument.
func findBuiltin(text string) (*builtin, string, bool) {
	rest, ok := strings.CutPrefix(text, "/")
	if !ok {
		return nil, "", false
	}
	name, arg, _ := strings.Cut(rest, " ")
	if i := strings.IndexAny(name, "\n\t"); i >= 0 {
		name, arg = name[:i], rest[i:]
	}
	for i := range builtins {
		if builtins[i].name == name {
			return &builtins[i], strings.TrimSpace(arg), true
		}
	}
	return nil, "", false
}

func (t *turn) cmdPlan(arg string, in promptInput) (sdk.StopReason, error) {
	t.ss.eng.SetMode(planning.ModePlan)
	t.ss.syncMode()
	if arg == "" && len(in.images) == 0 {
		t.message("Plan mode: the agent explores read-only and ends with a plan for you to review.")
		return sdk.StopReasonEndTurn, nil
	}
	in.text = arg
	return t.send(in)
}

func (t *turn) cmdCode(string, promptInput) (sdk.StopReason, error) {
	if t.ss.eng.Mode() == planning.ModePlan {
		t.ss.eng.SetMode(planning.ModeDefault)
		t.ss.syncMode()
	}
	t.message("Default mode: the agent edits files and runs commands.")
	return sdk.StopReasonEndTurn, nil
}

func (t *turn) cmdReview(string, promptInput) (sdk.StopReason, error) {
	p := t.ss.eng.Plan()
	if p == nil || t.ss.eng.NextStep() != planning.StepReview {
		t.message("No plan awaits review.")
		return sdk.StopReasonEndTurn, nil
	}
	// The review belongs to the call that showed the plan, when this
	// agent showed it; a plan of an earlier process gets a call of its own.
	t.ss.mu.Lock()
	t.planCall = t.ss.planCall
	t.ss.mu.Unlock()
	t.showPlan(*p)
	return t.review()
}

func (t *turn) cmdContinue(string, promptInput) (sdk.StopReason, error) {
	if t.ss.eng.NextStep() != planning.StepContinue {
		t.message("No approved plan is waiting to be continued.")
		return sdk.StopReasonEndTurn, nil
	}
	return t.play(t.ss.eng.Continue(t.ctx))
}

func (t *turn) cmdCompact(string, promptInput) (sdk.StopReason, error) {
	return t.play(t.ss.eng.Compact(t.ctx))
}

func (t *turn) cmdTodos(string, promptInput) (sdk.StopReason, error) {
	items := t.ss.eng.Todos()
	t.ss.sendPlan(items)
	if len(items) == 0 {
		t.message("The todo list is empty.")
		return sdk.StopReasonEndTurn, nil
	}
	var b strings.Builder
	for _, it := range items {
		mark := map[planning.TodoStatus]string{planning.TodoPending: "[ ]", planning.TodoInProgress: "[>]",
			planning.TodoCompleted: "[x]", planning.TodoCancelled: "[-]"}[it.Status]
		fmt.Fprintf(&b, "- %s %s\n", mark, it.Content)
	}
	t.message(b.String())
	return sdk.StopReasonEndTurn, nil
}

func (t *turn) cmdHelp(string, promptInput) (sdk.StopReason, error) {
	var b strings.Builder
	b.WriteString("Commands:\n\n")
	for _, c := range t.ss.commands() {
		fmt.Fprintf(&b, "- `/%s` — %s\n", c.Name, c.Description)
	}
	b.WriteString("\nModes: Default, Plan (read-only, ends with a plan to review), Auto-edit (asks before every change).")
	t.message(b.String())
	return sdk.StopReasonEndTurn, nil
}

// commands are the built-in and the custom commands, as the client lists
// them; a custom command named like a built-in is never used.
func (ss *sess) commands() []sdk.AvailableCommand {
	var out []sdk.AvailableCommand
	add := func(name, about, hint string) {
		c := sdk.AvailableCommand{Name: name, Description: about}
		if hint != "" {
			c.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
		}
		out = append(out, c)
	}
	for _, c := range builtins {
		add(c.name, c.about, c.hint)
	}
	for _, c := range ss.rt.Commands {
		if _, _, taken := findBuiltin("/" + c.Name); taken {
			continue
		}
		about := c.Description
		if about == "" {
			about = "custom command"
		}
		add(c.Name, about, c.Hint)
	}
	return out
}

// announce tells the client about a session it has just opened: its
// commands, what the set-up left out, its todo list, and what it waits
// for.
func (ss *sess) announce(context.Context) {
	ss.update(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: ss.commands()}})
	for _, n := range ss.rt.Notices {
		ss.update(sdk.UpdateAgentThoughtText("harness9: " + n))
	}
	if todos := ss.eng.Todos(); len(todos) > 0 {
		ss.sendPlan(todos)
	}
	switch ss.eng.NextStep() {
	case planning.StepReview:
		ss.update(sdk.UpdateAgentMessageText("A plan awaits your review: send /review to decide about it."))
	case planning.StepContinue:
		ss.update(sdk.UpdateAgentMessageText("An approved plan stopped before it was done: send /continue to go on executing it."))
	}
}
