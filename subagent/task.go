package subagent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/harness9/harness9/tool"
)

// ToolName is the name of the task tool.
const ToolName = "task"

// DefaultMaxParallel bounds the sub-agents one engine runs at once.
const DefaultMaxParallel = 4

// maxAnswer caps the child's answer in the tool result, in bytes; the whole
// transcript stays in the child's stored session.
const maxAnswer = 16 << 10

// Input is the task tool's input.
type Input struct {
	Description string `json:"description" jsonschema:"a short (3-6 word) label of the task, shown to the user"`
	Prompt      string `json:"prompt" jsonschema:"the whole task for the sub-agent: it sees nothing of this conversation, so say what to do, where, and what to report back"`
	Agent       string `json:"agent,omitempty" jsonschema:"which sub-agent runs the task (default explore)"`
}

// Request is one task for a Runner.
type Request struct {
	Description string
	Prompt      string
	Agent       Definition
}

// Report is what a finished sub-agent did.
type Report struct {
	Answer    string   // its final answer
	Status    string   // how its run ended (completed, max_turns, ...)
	SessionID string   // its stored transcript
	Turns     int      // model calls
	ToolCalls int      // tool calls
	Tools     []string // the tools it called, sorted, each once
	Files     []string // the files it touched (read or changed), sorted, each once
	Tokens    int      // input+output tokens it used
}

// Runner runs one sub-agent to its end. A refusal the model should see
// (a definition the parent's mode does not allow) is an error whose text is
// shown to the model; the call's context cancels the child.
type Runner interface {
	RunTask(ctx context.Context, req Request) (Report, error)
}

// Option configures NewTool.
type Option func(*taskTool)

// WithMaxParallel bounds how many of the tool's calls run at once
// (default DefaultMaxParallel); the rest wait for a free slot.
func WithMaxParallel(n int) Option {
	return func(t *taskTool) {
		if n > 0 {
			t.slots = make(chan struct{}, n)
		}
	}
}

// NewTool returns the task tool serving defs through r. Its calls are
// concurrency-safe (tool.Concurrent): several task calls of one model turn
// run at the same time, bounded by WithMaxParallel.
func NewTool(defs []Definition, r Runner, opts ...Option) tool.Tool {
	t := &taskTool{defs: defs, runner: r, slots: make(chan struct{}, DefaultMaxParallel)}
	for _, o := range opts {
		o(t)
	}
	t.Spec = tool.NewSpec[Input](ToolName, t.description())
	return t
}

type taskTool struct {
	tool.Spec
	defs   []Definition
	runner Runner
	slots  chan struct{}
}

// Kind implements tool.Kinded: a sub-agent is the agent working on part
// of its task.
func (t *taskTool) Kind() tool.Kind { return tool.KindThink }

// ConcurrencySafe implements tool.Concurrent: each call runs a child with
// its own context, and a child's own tool calls go through its own gates.
func (t *taskTool) ConcurrencySafe() bool { return true }

// ChangedFiles implements tool.FileChanger: a sub-agent that may change
// files may change any of them, as a shell command may, so the parent
// checkpoints the whole tree around the call and its undo covers what the
// child did. A read-only sub-agent changes nothing.
func (t *taskTool) ChangedFiles(input json.RawMessage) ([]string, bool) {
	var in Input
	if json.Unmarshal(input, &in) != nil {
		return nil, false // refused before anything runs
	}
	_, i := t.lookup(in)
	return nil, i >= 0 && !t.defs[i].ReadOnly
}

// lookup returns the name of the definition in asks for (explore when
// none) and its index in t.defs, or -1.
func (t *taskTool) lookup(in Input) (string, int) {
	name := strings.TrimSpace(in.Agent)
	if name == "" {
		name = Explore
	}
	return name, slices.IndexFunc(t.defs, func(d Definition) bool { return d.Name == name })
}

func (t *taskTool) description() string {
	var b strings.Builder
	b.WriteString("Delegate a self-contained task to a sub-agent with its own context. It returns the sub-agent's " +
		"final answer and a short record of what it did. Use it for research that would fill your context " +
		"(searching a codebase, reading many files) or independent pieces of work; several task calls in one " +
		"message run in parallel. The sub-agent sees nothing of this conversation: the prompt must say everything.\n\nSub-agents:")
	for _, d := range t.defs {
		fmt.Fprintf(&b, "\n- %s: %s", d.Name, d.Description)
	}
	return b.String()
}

// Execute runs one task.
func (t *taskTool) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, ToolName, input, func(ctx context.Context, in Input) (tool.Result, error) {
		name, i := t.lookup(in)
		if i < 0 {
			return tool.Errorf("unknown sub-agent %q; known: %s", name, strings.Join(t.names(), ", ")), nil
		}
		if strings.TrimSpace(in.Prompt) == "" {
			return tool.Errorf("task: prompt is empty; say what the sub-agent should do and report"), nil
		}
		select {
		case t.slots <- struct{}{}:
		case <-ctx.Done():
			return tool.Errorf("task was cancelled before it started"), nil
		}
		defer func() { <-t.slots }()
		rep, err := t.runner.RunTask(ctx, Request{Description: in.Description, Prompt: in.Prompt, Agent: t.defs[i]})
		if err != nil {
			return tool.Errorf("%v", err), nil
		}
		res := tool.Text(Format(rep))
		res.IsError = rep.Status != "completed"
		return res, nil
	})
}

func (t *taskTool) names() []string {
	out := make([]string, len(t.defs))
	for i, d := range t.defs {
		out[i] = d.Name
	}
	return out
}

// Format renders a report as the model sees it: the answer (capped), then
// one short record of the run.
func Format(r Report) string {
	var b strings.Builder
	answer := strings.TrimSpace(r.Answer)
	if answer == "" {
		answer = "(the sub-agent gave no answer)"
	}
	b.WriteString(tool.Truncate(answer, maxAnswer))
	fmt.Fprintf(&b, "\n\n[sub-agent %s: %s · %d turns · %d tool calls", r.SessionID, r.Status, r.Turns, r.ToolCalls)
	if len(r.Tools) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(r.Tools, ", "))
	}
	fmt.Fprintf(&b, " · %d tokens", r.Tokens)
	if len(r.Files) > 0 {
		files := r.Files
		more := ""
		if len(files) > 10 {
			more = fmt.Sprintf(" and %d more", len(files)-10)
			files = files[:10]
		}
		fmt.Fprintf(&b, " · files: %s%s", strings.Join(files, ", "), more)
	}
	b.WriteString("]")
	return b.String()
}
