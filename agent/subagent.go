package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/harness9/harness9/subagent"
	"github.com/harness9/harness9/tool"
)

// Defaults of sub-agents (the task tool).
const (
	// DefaultSubagentDepth: a sub-agent cannot start sub-agents.
	DefaultSubagentDepth = 1
	// DefaultSubagentMaxTurns caps the model calls of one sub-agent.
	DefaultSubagentMaxTurns = 30
)

// Nested is an event of a sub-agent, forwarded into its parent's stream.
// Parent is the id of the task call that started the sub-agent. Type is
// the inner event's. A sub-agent's approval requests are not wrapped: they
// reach the consumer as the parent's own, so every front end answers them.
type Nested struct {
	Parent string
	Event  Event
}

// Type implements Event: the inner event's type.
func (n Nested) Type() string { return n.Event.Type() }

// WithSubagents offers the model the task tool: it delegates a task to a
// child engine running one of defs (subagent.Builtins and
// subagent.Discover's), with the same provider, store, workspace, sandbox
// policy and permission rules, restricted further by the definition and by
// what this engine's run may use at the time.
func WithSubagents(defs []subagent.Definition) Option {
	return func(c *config) { c.subagents = defs }
}

// WithSubagentLimits sets how many sub-agents run at once (default
// subagent.DefaultMaxParallel), how deep they may nest (default
// DefaultSubagentDepth: 1 means a sub-agent cannot start its own) and the
// turns each may take (default DefaultSubagentMaxTurns). Zero keeps a
// default.
func WithSubagentLimits(maxParallel, maxDepth, maxTurns int) Option {
	return func(c *config) {
		c.subParallel, c.subDepth, c.subTurns = maxParallel, maxDepth, maxTurns
	}
}

// childOf marks the engine as a sub-agent of the session parentID.
func childOf(parentID, title, agent string, depth int) Option {
	return func(c *config) { c.parentID, c.childTitle, c.agentName, c.depth = parentID, title, agent, depth }
}

// isChild reports whether the engine runs a sub-agent.
func (e *Engine) isChild() bool { return e.cfg.depth > 0 }

// taskTool returns the task tool, or nil when sub-agents are off or this
// engine is already as deep as sub-agents may nest.
func (e *Engine) taskTool() tool.Tool {
	depth := e.cfg.subDepth
	if depth <= 0 {
		depth = DefaultSubagentDepth
	}
	if len(e.cfg.subagents) == 0 || e.cfg.depth >= depth {
		return nil
	}
	return subagent.NewTool(e.cfg.subagents, taskRunner{e}, subagent.WithMaxParallel(e.cfg.subParallel))
}

// loopKey carries the running turnLoop to the task tool's runner, which
// needs the mode and the gate of the call that started it.
type loopKey struct{}

// relayKey carries the queue a running call reports its events to.
type relayKey struct{}

type relay struct {
	id string
	q  *eventQueue
}

// taskRunner runs sub-agents for the task tool.
type taskRunner struct{ e *Engine }

// RunTask implements subagent.Runner.
func (r taskRunner) RunTask(ctx context.Context, req subagent.Request) (subagent.Report, error) {
	e := r.e
	l, _ := ctx.Value(loopKey{}).(*turnLoop)
	rl, _ := ctx.Value(relayKey{}).(relay)
	if l == nil || rl.q == nil {
		return subagent.Report{}, fmt.Errorf("task: sub-agents run only inside an agent run")
	}
	def := req.Agent
	readOnly := def.ReadOnly || e.allReadOnly(def.Tools)
	// A read-only sub-agent runs under Plan Mode's gate and the kernel's
	// read-only policy whatever the parent's mode.
	childMode, err := l.policy.SubagentMode(readOnly)
	if err != nil {
		return subagent.Report{}, fmt.Errorf("sub-agent %q may change files, so it cannot run in Plan Mode: "+
			"delegate research to a read-only sub-agent (%s) and submit a plan for the changes", def.Name, subagent.Explore)
	}
	var tools []tool.Tool
	for _, t := range e.userTools() {
		name := t.Name()
		if def.Tools != nil && !slices.Contains(def.Tools, name) {
			continue
		}
		if !l.gate.Visible(name) {
			continue // the parent may not use it now (mode, deny rules)
		}
		if readOnly && !isReadOnly(t) && !canRunReadOnly(t) {
			continue
		}
		tools = append(tools, t)
	}
	system := e.cfg.system
	if def.Prompt != "" {
		system += "\n\n" + def.Prompt
	}
	model, label := e.cfg.model, e.cfg.modelLabel
	if def.Model != "" {
		model, label = def.Model, e.provider.Name()+"/"+def.Model
	}
	turns := e.cfg.subTurns
	if turns <= 0 {
		turns = DefaultSubagentMaxTurns
	}
	opts := []Option{
		WithModel(model), WithEffort(e.Effort()), WithModelLabel(label), WithSystemPrompt(system), WithTools(tools...),
		WithStore(e.cfg.store), WithWorkdir(e.cfg.workdir), WithMode(childMode), WithMaxTurns(turns),
		WithToolTimeout(e.cfg.toolTimeout), WithMaxToolOutput(e.cfg.maxToolOutput),
		WithContextWindow(e.cfg.contextWindow), WithCompactor(e.cfg.compactor), WithEvidenceGate(false),
		WithLogger(e.log), WithClock(e.cfg.now), WithPermissions(e.cfg.permissions),
		WithPermissionStore(e.cfg.savePermission), WithResultHook(e.cfg.resultHook),
		WithSubagents(e.cfg.subagents), WithSubagentLimits(e.cfg.subParallel, e.cfg.subDepth, e.cfg.subTurns),
		childOf(e.SessionID(), req.Description, def.Name, e.cfg.depth+1), WithObserver(e.cfg.observer),
		// The user's hooks guard a sub-agent's calls as they guard the
		// parent's: delegating must not get around a pre_tool_use hook.
		WithHooks(e.cfg.hooks),
		WithUserInput(e.cfg.userInput),
	}
	if e.ws != nil {
		opts = append(opts, WithWorkspace(e.ws))
	}
	child, err := New(e.provider, opts...)
	if err != nil {
		return subagent.Report{}, fmt.Errorf("task: could not start the sub-agent: %w", err)
	}
	rep := subagent.Report{Status: string(RunCancelled)}
	var usedTools, files []string
	for ev := range child.Run(ctx, req.Prompt) {
		switch ev := ev.(type) {
		case *ApprovalRequest, *InputRequest:
			rl.q.push(ev)
			continue
		case SessionStarted:
			rep.SessionID = ev.SessionID
		case Text:
			rep.Answer = ev.Text
		case UsageUpdate:
			rep.Turns++
			rep.Tokens += ev.Usage.InputTokens + ev.Usage.OutputTokens
		case ToolCall:
			rep.ToolCalls++
			usedTools = appendOnce(usedTools, ev.Name)
			if t, ok := child.registry.Lookup(ev.Name); ok {
				if sc, ok := t.(tool.Scoped); ok {
					if p := sc.Scope(ev.Input).Path; p != "" {
						files = appendOnce(files, p)
					}
				}
			}
		case Done:
			rep.Status = string(ev.Status)
			if ev.Err != nil && ev.Status != RunCompleted {
				rep.Answer = strings.TrimSpace(rep.Answer + "\n\nThe sub-agent stopped: " + ev.Err.Error())
			}
		}
		rl.q.push(Nested{Parent: rl.id, Event: ev})
	}
	slices.Sort(usedTools)
	slices.Sort(files)
	rep.Tools, rep.Files = usedTools, files
	return rep, nil
}

// allReadOnly reports whether names is a non-empty list of tools that all
// change nothing (or can run read-only under the kernel sandbox).
func (e *Engine) allReadOnly(names []string) bool {
	if len(names) == 0 {
		return false
	}
	tools := e.userTools()
	for _, n := range names {
		i := slices.IndexFunc(tools, func(t tool.Tool) bool { return t.Name() == n })
		if i < 0 {
			continue // unknown names give the child nothing
		}
		if t := tools[i]; !isReadOnly(t) && !canRunReadOnly(t) {
			return false
		}
	}
	return true
}

func isReadOnly(t tool.Tool) bool {
	ro, ok := t.(tool.ReadOnly)
	return ok && ro.ReadOnly()
}

func canRunReadOnly(t tool.Tool) bool {
	rc, ok := t.(tool.ReadOnlyCapable)
	return ok && rc.CanRunReadOnly()
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
