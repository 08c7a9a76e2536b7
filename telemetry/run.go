package telemetry

import (
	"context"
	"sync"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool"
)

var _ agent.Observer = (*Telemetry)(nil)

// StartRun implements agent.Observer: the run is an invoke_agent span.
func (t *Telemetry) StartRun(ctx context.Context, info agent.RunInfo) (context.Context, agent.RunObserver) {
	attrs := append(modelAttrs(info.Model), OperationName.String("invoke_agent"), AgentName.String(info.Agent),
		Workdir.String(info.Workdir))
	if info.SessionID != "" {
		attrs = append(attrs, ConversationID.String(info.SessionID))
	}
	if info.ParentID != "" {
		attrs = append(attrs, ParentSession.String(info.ParentID))
	}
	ctx, span := t.tracer.Start(ctx, "invoke_agent "+info.Agent, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...))
	r := &run{t: t, ctx: ctx, span: span, info: info, model: modelAttrs(info.Model), tools: map[string]*toolCall{}}
	if info.New && info.ParentID == "" {
		t.m.sessions.Add(ctx, 1, metric.WithAttributes(r.model...))
	}
	return ctx, r
}

// Usage implements agent.Observer: plan outcomes are counted and noted on
// the span in ctx (the run's, when a run took them).
func (t *Telemetry) Usage(ctx context.Context, _, _ string, u session.Usage) {
	for _, o := range []struct {
		name string
		n    int
	}{{"submitted", u.PlansSubmitted}, {"approved", u.PlansApproved}, {"refined", u.PlansRefined},
		{"cancelled", u.PlansCancelled}, {"stalled", u.PlansStalled}} {
		if o.n == 0 {
			continue
		}
		t.m.plans.Add(ctx, int64(o.n), metric.WithAttributes(PlanOutcome.String(o.name)))
		if o.name != "submitted" { // the PlanSubmitted event notes it, with its steps
			trace.SpanFromContext(ctx).AddEvent("plan_"+o.name, trace.WithAttributes(PlanOutcome.String(o.name)))
		}
	}
}

// run observes one run of an engine.
type run struct {
	t     *Telemetry
	ctx   context.Context
	span  trace.Span
	info  agent.RunInfo
	model []attribute.KeyValue

	mu    sync.Mutex
	tools map[string]*toolCall // by call id, from ToolCall to ToolResult
}

// toolCall is a call's execute_tool span and what is known of it.
type toolCall struct {
	name     string
	span     trace.Span
	ctx      context.Context
	decision string
	rule     string
}

// Event implements agent.RunObserver.
func (r *run) Event(ev agent.Event) {
	switch ev := ev.(type) {
	case agent.SessionStarted:
		r.span.SetAttributes(ConversationID.String(ev.SessionID), Mode.String(ev.Mode.String()))
	case agent.UsageUpdate:
		r.t.m.turns.Add(r.ctx, 1, metric.WithAttributes(r.model...))
	case agent.ToolCall:
		r.startTool(ev)
	case agent.Permission:
		r.decide(ev)
	case *agent.ApprovalRequest:
		if c := r.call(ev.Call.ID); c != nil {
			c.span.AddEvent("approval_requested")
		}
	case agent.ToolResult:
		r.endTool(ev)
	case agent.PlanSubmitted:
		attrs := []attribute.KeyValue{PlanSteps.Int(len(ev.Plan.Steps))}
		if r.t.content {
			attrs = append(attrs, PlanTitle.String(ev.Plan.Title))
		}
		r.span.AddEvent("plan_submitted", trace.WithAttributes(attrs...))
	case agent.ExecRound:
		r.span.AddEvent("exec_round", trace.WithAttributes(Round.Int(ev.Round), Done.Int(ev.Done), Total.Int(ev.Total)))
	case agent.Compacted:
		r.span.AddEvent("compacted", trace.WithAttributes(BeforeTokens.Int(ev.BeforeTokens), AfterTokens.Int(ev.AfterTokens)))
	}
}

func (r *run) call(id string) *toolCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tools[id]
}

func (r *run) startTool(ev agent.ToolCall) {
	attrs := []attribute.KeyValue{OperationName.String("execute_tool"), ToolName.String(ev.Name),
		ToolCallID.String(ev.ID), ToolType.String("function")}
	if r.t.sandbox != "" {
		attrs = append(attrs, Sandbox.String(r.t.sandbox))
	}
	if r.t.content {
		attrs = append(attrs, ToolArguments.String(string(ev.Input)))
	}
	ctx, span := r.t.tracer.Start(r.ctx, "execute_tool "+ev.Name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrs...))
	r.mu.Lock()
	r.tools[ev.ID] = &toolCall{name: ev.Name, span: span, ctx: ctx, decision: "allowed"}
	r.mu.Unlock()
}

// decide notes how a call's permission was settled: by a rule or an
// earlier answer, by asking the user, or refused. A call asked about and
// then allowed stays "asked".
func (r *run) decide(ev agent.Permission) {
	c := r.call(ev.ID)
	if c == nil {
		return
	}
	switch ev.Decision {
	case agent.PermissionAllowed:
		c.decision = "allowed_by_rule"
	case agent.PermissionAsked:
		c.decision = "asked"
	case agent.PermissionDenied:
		c.decision = "denied"
	}
	if ev.Rule != "" {
		c.rule = ev.Rule
	}
}

// ToolContext implements agent.RunObserver: the call runs inside its
// execute_tool span, with the sandbox policy it runs under noted and the
// gate's refusals counted.
func (r *run) ToolContext(ctx context.Context, callID string) context.Context {
	c := r.call(callID)
	if c == nil {
		return ctx
	}
	if p := sandbox.PolicyFromContext(ctx, 0); p != 0 {
		c.span.SetAttributes(SandboxPolicy.String(p.String()))
	}
	ctx = trace.ContextWithSpan(ctx, c.span)
	return tool.ContextWithRefusals(ctx, func(name string, _ error) {
		c.span.SetAttributes(Refused.Bool(true))
		r.t.m.refusals.Add(r.ctx, 1, metric.WithAttributes(ToolName.String(name)))
	})
}

func (r *run) endTool(ev agent.ToolResult) {
	r.mu.Lock()
	c := r.tools[ev.ID]
	delete(r.tools, ev.ID)
	r.mu.Unlock()
	if c == nil {
		return
	}
	outcome := "ok"
	attrs := []attribute.KeyValue{Decision.String(c.decision), OutputBytes.Int(len(ev.Output))}
	if c.rule != "" {
		attrs = append(attrs, Rule.String(c.rule))
	}
	if ev.ExitCode != nil {
		attrs = append(attrs, ExitCode.Int(*ev.ExitCode))
	}
	if r.t.content {
		attrs = append(attrs, ToolResult.String(ev.Output))
	}
	if ev.IsError {
		outcome = "error"
		attrs = append(attrs, ErrorType.String("tool_error"))
		c.span.SetStatus(codes.Error, firstLine(ev.Output, r.t.content))
	}
	c.span.SetAttributes(attrs...)
	c.span.End()
	r.t.m.toolCalls.Add(r.ctx, 1, metric.WithAttributes(ToolName.String(c.name), Decision.String(c.decision),
		ToolOutcome.String(outcome)))
}

// firstLine is what an error status says about a failed call: nothing of
// its output unless content is recorded (output can quote files).
func firstLine(s string, content bool) string {
	if !content {
		return "the tool reported an error"
	}
	for i := range len(s) {
		if s[i] == '\n' {
			s = s[:i]
			break
		}
	}
	if len(s) > 200 {
		s = s[:200]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// End implements agent.RunObserver.
func (r *run) End(status agent.RunStatus, err error) {
	r.mu.Lock()
	left := r.tools
	r.tools = nil
	r.mu.Unlock()
	for _, c := range left { // calls whose result never came (a cancelled run)
		c.span.SetAttributes(Decision.String(c.decision), ErrorType.String("cancelled"))
		c.span.End()
	}
	r.span.SetAttributes(RunStatus.String(string(status)))
	if status == agent.RunError {
		r.span.SetAttributes(ErrorType.String(ErrorRunStatus))
		if err != nil {
			r.span.SetStatus(codes.Error, err.Error())
		} else {
			r.span.SetStatus(codes.Error, "the run failed")
		}
	}
	r.span.End()
}
