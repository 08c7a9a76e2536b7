package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/harness9/harness9/internal/lib/driver"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/permission"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/tool"
)

// The permission of a call is decided here, in one place (DESIGN §7.2):
// the user's rules first (deny > ask > allow), then the mode's default,
// which looks only at the tool's properties, never its name.

// sessionRule is what a Permission event names for a call allowed by an
// earlier "allow for this session" answer.
const sessionRule = "allowed for this session"

// projectSource is the source of rules added by "always allow for this
// project" answers.
const projectSource = "always allowed for this project"

// needsApproval reports whether call must be settled before it runs: put
// to the user, or refused by a deny rule (askUser does either). Calls the
// registry will refuse anyway (unknown tool, gate, malformed JSON) are left
// to it.
func (l *turnLoop) needsApproval(call llm.ToolCall) bool {
	d, ok := l.decide(call)
	if !ok {
		return false
	}
	if d.Action == permission.Allow && len(d.Rules) > 0 {
		l.s.emit(Permission{ID: call.ID, Name: call.Name, Decision: PermissionAllowed, Rule: d.Rule()})
	}
	return d.Action == permission.Ask || d.Action == permission.Deny
}

// decide returns the permission of call; ok is false for calls the
// permission layer does not judge.
func (l *turnLoop) decide(call llm.ToolCall) (d permission.Decision, ok bool) {
	t, found := l.e.registry.Lookup(call.Name)
	if !found || !json.Valid(call.Input) || !l.e.userTool(call.Name) {
		// The engine's own tools (todo_write, submit_plan) change only the
		// session's plan.
		return d, false
	}
	pc := permissionCall(t, call)
	if d = l.e.cfg.permissions.Decide(pc, permission.Allow); d.Action == permission.Deny {
		return d, true
	}
	if l.gate != nil && l.gate.Check(call.Name, call.Input) != nil {
		return d, false
	}
	d = l.e.cfg.permissions.Decide(pc, modeDefault(l.policy, t))
	if d.Action == permission.Ask && len(d.Rules) == 0 {
		if l.e.st.AllowedForSession(call.Name) {
			d = permission.Decision{Action: permission.Allow, Rules: []permission.Rule{{Tool: sessionRule}}}
		}
	}
	return d, true
}

// userTool reports whether name is one of the tools the engine was given
// (WithTools), not one it provides itself.
func (e *Engine) userTool(name string) bool {
	for _, t := range e.userTools() {
		if t.Name() == name {
			return true
		}
	}
	return false
}

// modeDefault is what a mode does with a call no rule decides (DESIGN
// §7.2), by what the tool says of itself: the mode table's Asks decides.
func modeDefault(p planning.Policy, t tool.Tool) permission.Action {
	ro, _ := t.(tool.ReadOnly)
	c, _ := t.(tool.Contained)
	if p.Asks(ro != nil && ro.ReadOnly(), c != nil && c.Contained()) {
		return permission.Ask
	}
	return permission.Allow
}

// permissionCall describes call by what its tool says it acts on.
func permissionCall(t tool.Tool, call llm.ToolCall) permission.Call {
	pc := permission.Call{Tool: call.Name}
	if s, ok := t.(tool.Scoped); ok {
		sc := s.Scope(call.Input)
		pc.Command, pc.Path, pc.URL = sc.Command, sc.Path, sc.URL
	}
	return pc
}

// askUser settles a call needsApproval held back: a deny rule refuses it;
// an answer the host was given for it (Loop.Answers) settles it;
// otherwise it emits an ApprovalRequest and blocks until the consumer
// answers or the run ends. ok is false when the call must not run; res is
// then the result the model sees. A host that cannot wait (awaitAnswer)
// leaves the call unsettled: l.asked is set and the batch stops there.
func (l *turnLoop) askUser(ctx context.Context, call llm.ToolCall) (res tool.Result, ok bool) {
	d, _ := l.decide(call)
	if d.Action == permission.Deny {
		l.s.emit(Permission{ID: call.ID, Name: call.Name, Decision: PermissionDenied, Rule: d.Rule()})
		return tool.Errorf("%s", deniedBy(call.Name, d.Rules[0])), false
	}
	t, _ := l.e.registry.Lookup(call.Name)
	req := &ApprovalRequest{
		Call: call, Preview: preview(t, call), Why: l.why(d, t),
		Rules: permission.Suggest(permissionCall(t, call), l.e.cfg.workdir),
		reply: make(chan approvalReply, 1),
	}
	cancelled := tool.Errorf("%s was cancelled while waiting for the user's approval", call.Name)
	if a, given := l.answers[call.ID]; given {
		if a.Cancelled {
			l.s.cancel() // the run was cancelled while the question waited: the calls after it end as cancelled
			return cancelled, false
		}
		return l.settle(call, req, replyFor(req, a))
	}
	l.s.emit(Permission{ID: call.ID, Name: call.Name, Decision: PermissionAsked, Rule: d.Rule()})
	if !l.s.emit(req) {
		return cancelled, false
	}
	var r approvalReply
	select {
	case <-ctx.Done():
		return cancelled, false
	case r = <-req.reply:
	}
	if r.decision == awaitAnswer {
		l.asked = true
		return tool.Result{}, false
	}
	return l.settle(call, req, r)
}

// awaitAnswer is the reply of a host that cannot hold a step open while
// the user decides (the durable host, driver.Hosted): the question is put
// to the user elsewhere, and the step is run again with the answer.
const awaitAnswer Decision = -1

// replyFor is the reply an answer the host was given stands for.
func replyFor(req *ApprovalRequest, a driver.Answer) approvalReply {
	if a.Unanswered {
		return approvalReply{Refuse, a.Reason}
	}
	d, err := req.Decision(a.Answer)
	if err != nil {
		return approvalReply{Refuse, fmt.Sprintf("%s was not run: %v", req.Call.Name, err)}
	}
	return approvalReply{d, a.Reason}
}

// settle carries out the user's reply to req: ok says the call runs.
func (l *turnLoop) settle(call llm.ToolCall, req *ApprovalRequest, r approvalReply) (res tool.Result, ok bool) {
	switch r.decision {
	case AllowOnce:
		return tool.Result{}, true
	case AllowSession:
		l.e.st.AllowForSession(call.Name)
		return tool.Result{}, true
	case AllowProject:
		l.e.allowForProject(req.Rules)
		return tool.Result{}, true
	}
	l.s.emit(Permission{ID: call.ID, Name: call.Name, Decision: PermissionDenied})
	reason := strings.TrimSpace(r.reason)
	if r.decision == Refuse && reason != "" {
		return tool.Errorf("%s", reason), false
	}
	if reason == "" {
		reason = "no reason given"
	}
	return tool.Errorf("the user denied this call: %s", reason), false
}

// allowForProject adds rules to the allow rules in effect and hands them
// to the permission store.
func (e *Engine) allowForProject(rules []string) {
	if len(rules) == 0 || e.cfg.permissions == nil {
		return
	}
	if err := e.cfg.permissions.Add(permission.Allow, projectSource, rules...); err != nil {
		e.log.Warn("agent: an always-allow answer made no rule", "rules", rules, "err", err)
		return
	}
	e.st.GrantRules(rules...)
	if e.cfg.savePermission != nil {
		if err := e.cfg.savePermission(rules); err != nil {
			e.log.Warn("agent: could not keep an always-allow answer", "rules", rules, "err", err)
		}
	}
}

// why says why the user is asked.
func (l *turnLoop) why(d permission.Decision, t tool.Tool) string {
	if len(d.Rules) > 0 {
		r := d.Rules[0]
		return fmt.Sprintf("the ask rule %s (%s) applies", r, r.Source)
	}
	if l.policy.AskReason != "" {
		return l.policy.AskReason
	}
	if u, ok := t.(tool.Uncontained); ok {
		if r := u.UncontainedReason(); r != "" {
			return r
		}
	}
	if _, ok := t.(tool.Contained); ok {
		return "the kernel sandbox does not contain this call, so nothing bounds what it changes"
	}
	return "this tool may change things outside the workdir's sandbox"
}

// preview is what the user approves: the tool's own preview, else the raw
// arguments.
func preview(t tool.Tool, call llm.ToolCall) string {
	if p, ok := t.(tool.Previewer); ok {
		if s := p.Preview(call.Input); s != "" {
			return s
		}
	}
	return string(call.Input)
}

// deniedBy is the refusal the model sees for a call a deny rule refuses.
func deniedBy(name string, r permission.Rule) string {
	return fmt.Sprintf("%s is not allowed here: the deny rule %s (%s) refuses this call. Do it another way, or ask the user to change the rule",
		name, r, r.Source)
}

// withDenyRules makes the run's gate enforce deny rules too, so they hold
// for every call the registry runs, read-only calls run together
// included, and a tool denied as a whole is not offered to the model.
func (e *Engine) withDenyRules(g tool.Gate) tool.Gate {
	if e.cfg.permissions == nil || len(e.cfg.permissions.List()) == 0 {
		return g
	}
	return denyGate{Gate: g, e: e}
}

type denyGate struct {
	tool.Gate
	e *Engine
}

func (g denyGate) Visible(name string) bool {
	d := g.e.cfg.permissions.Decide(permission.Call{Tool: name}, permission.Allow)
	whole := d.Action == permission.Deny && d.Rules[0].Specifier == ""
	return !whole && g.Gate.Visible(name)
}

func (g denyGate) Check(name string, input json.RawMessage) error {
	if t, ok := g.e.registry.Lookup(name); ok {
		d := g.e.cfg.permissions.Decide(permissionCall(t, llm.ToolCall{Name: name, Input: input}), permission.Allow)
		if d.Action == permission.Deny {
			return errors.New(deniedBy(name, d.Rules[0]))
		}
	}
	return g.Gate.Check(name, input)
}

// summary is the tool's one-line account of a finished call, "" when it
// gives none.
// outputIsDiff reports whether the named tool's output is a unified diff.
func (e *Engine) outputIsDiff(name string) bool {
	t, ok := e.registry.Lookup(name)
	if !ok {
		return false
	}
	d, ok := t.(tool.DiffOutput)
	return ok && d.OutputIsDiff()
}

// DescribeResult is what a front end shows of a stored tool result when
// it draws a session again: the tool's one-line summary ("" when it gives
// none) and whether the output is a unified diff, as the live ToolResult
// event said.
func (e *Engine) DescribeResult(call llm.ToolCall, output string, isError bool) (summary string, diff bool) {
	res := tool.Result{Output: output, IsError: isError}
	return e.summary(call, res), !isError && e.outputIsDiff(call.Name)
}

func (e *Engine) summary(call llm.ToolCall, res tool.Result) string {
	t, ok := e.registry.Lookup(call.Name)
	if !ok {
		return ""
	}
	if s, ok := t.(tool.Summarizer); ok {
		return s.Summary(call.Input, res)
	}
	return ""
}
