package durable

import (
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/driver"
	"github.com/harness9/harness9/llm"
)

// A call that needs the user's permission (AutoEdit's "confirm each edit",
// an ask rule, a tool the sandbox cannot contain) is asked as on the local
// engine, but nobody waits on a worker: the tool batch ends at the
// question (driver.Hosted), the workflow records it in its state and its
// events, and waits — across worker and server restarts, since waiting is
// workflow state — for the answer to arrive as an update accepted once
// (UpdatePermission), or for AskTimeout. The batch then runs again, on any
// worker, with the answer: the calls answered before are not run again and
// the asked call is not asked again, so each call is answered exactly once.

// UpdatePermission answers the permission question the workflow waits
// for, exactly once: a second answer, or an answer to a question that is
// not waiting, is refused.
const UpdatePermission = "permission-once"

// Error types of a refused permission answer.
const (
	ErrTypeAnswered   = "answered"    // the question was answered already
	ErrTypeNoQuestion = "no_question" // no such question waits
)

// DefaultAskTimeout is how long a permission question waits for its answer
// before the call is refused.
const DefaultAskTimeout = 24 * time.Hour

// Question is a permission question a workflow waits on: the call, and
// what the user needs to decide (the fields of agent.ApprovalRequest).
type Question struct {
	// ID is the tool call's id; answers name it.
	ID      string          `json:"id"`
	Tool    string          `json:"tool"`
	Input   json.RawMessage `json:"input"`
	Preview string          `json:"preview"`
	Why     string          `json:"why"`
	// Rules are the allow rules an "always" answer adds (empty: it
	// allows the tool for the session).
	Rules []string `json:"rules"`
}

func questionOf(req *agent.ApprovalRequest) Question {
	return Question{ID: req.Call.ID, Tool: req.Call.Name, Input: req.Call.Input, Preview: req.Preview, Why: req.Why, Rules: req.Rules}
}

// Request is the question as the engine's event, as followers play it: an
// agent.ApprovalRequest whose Respond does nothing (answer it with
// AnswerPermission).
func (q Question) Request() *agent.ApprovalRequest {
	return &agent.ApprovalRequest{Call: llm.ToolCall{ID: q.ID, Name: q.Tool, Input: q.Input}, Preview: q.Preview, Why: q.Why, Rules: q.Rules}
}

// PermissionAnswer is the argument of UpdatePermission.
type PermissionAnswer struct {
	// Ask is the question's id (the tool call's).
	Ask string
	// Answer is allow, always or deny (agent.ApprovalRequest.Decision).
	Answer string
	// Reason is told to the model with a denial.
	Reason string
}

// PermissionAnswered is the event a workflow records when a question is
// settled: by an answer, or by nobody answering within the ask timeout
// (Unanswered, Answer deny).
type PermissionAnswered struct {
	ID         string
	Answer     string
	Unanswered bool `json:",omitempty"`
}

// Type implements agent.Event: serve's name for it.
func (PermissionAnswered) Type() string { return "permission_answered" }

// askState is the workflow's side of permission questions.
type askState struct {
	// waiting is the question waiting for its answer (nil: none);
	// answered says an update accepted the answer, which answers carries
	// to the waiting step.
	waiting  *Question
	answered bool
	answers  workflow.Channel
	// settled are the questions of this run answered already, for the
	// error a second answer gets.
	settled map[string]bool
}

func newAskState(ctx workflow.Context) askState {
	return askState{answers: workflow.NewBufferedChannel(ctx, 1), settled: map[string]bool{}}
}

// pendingAsks lists the question waiting for an answer.
func (f *flow) pendingAsks() []Question {
	if f.asks.waiting == nil || f.asks.answered {
		return nil
	}
	return []Question{*f.asks.waiting}
}

// askUser records q, waits for its answer and returns it: the answer an
// update brought, nobody's answer after AskTimeout, or the workflow's
// cancellation.
func (f *flow) askUser(q Question) driver.Answer {
	f.emitEnvelope("permission_ask", q)
	f.asks.waiting, f.asks.answered = &q, false
	timeout := f.in.AskTimeout
	if timeout <= 0 {
		timeout = DefaultAskTimeout
	}
	tctx, stopTimer := workflow.WithCancel(f.ctx)
	expired := false
	var a PermissionAnswer
	sel := workflow.NewSelector(f.ctx)
	sel.AddReceive(f.asks.answers, func(c workflow.ReceiveChannel, _ bool) { c.Receive(f.ctx, &a) })
	sel.AddFuture(workflow.NewTimer(tctx, timeout), func(fut workflow.Future) { expired = fut.Get(tctx, nil) == nil })
	sel.AddReceive(f.ctx.Done(), func(workflow.ReceiveChannel, bool) {})
	sel.Select(f.ctx)
	stopTimer()
	accepted := f.asks.answered
	if accepted && a.Ask == "" {
		// An accepted answer wins over the timer or the cancellation
		// selected in the same wait: its caller was told it took effect.
		f.asks.answers.ReceiveAsync(&a)
	}
	f.asks.waiting, f.asks.answered = nil, false
	f.asks.settled[q.ID] = true
	switch {
	case accepted:
		f.emit(PermissionAnswered{ID: q.ID, Answer: a.Answer})
		return driver.Answer{Answer: a.Answer, Reason: a.Reason}
	case expired:
		f.emit(PermissionAnswered{ID: q.ID, Answer: "deny", Unanswered: true})
		return driver.Answer{Unanswered: true, Reason: fmt.Sprintf("%s was not run: it needs the user's permission (%s) and nobody "+
			"answered the question within %s. Carry on without it if you can, and tell the user which permission is missing.",
			q.Tool, q.Why, timeout)}
	}
	return driver.Answer{Cancelled: true}
}

// canAnswerAsk says whether an update may answer a question.
func (f *flow) canAnswerAsk(a PermissionAnswer) error {
	w := f.asks.waiting
	switch {
	case w != nil && w.ID == a.Ask && !f.asks.answered:
	case w != nil && w.ID == a.Ask, f.asks.settled[a.Ask]:
		return temporal.NewNonRetryableApplicationError("the permission question "+a.Ask+" of session "+f.in.SessionID+
			" was answered already", ErrTypeAnswered, nil)
	default:
		return temporal.NewNonRetryableApplicationError("no permission question "+a.Ask+" waits in session "+f.in.SessionID+
			" (list the waiting ones with `harness9 sessions answer "+f.in.SessionID+"`)", ErrTypeNoQuestion, nil)
	}
	if _, err := (&agent.ApprovalRequest{}).Decision(a.Answer); err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeUsage, nil)
	}
	return nil
}

// answerAsk is the UpdatePermission handler: it hands the answer to the
// waiting step. The check is repeated here because two updates may pass
// their validators before either handler runs; handlers run one at a time.
func (f *flow) answerAsk(ctx workflow.Context, a PermissionAnswer) (int, error) {
	if err := f.canAnswerAsk(a); err != nil {
		return 0, err
	}
	f.asks.answered = true
	f.asks.answers.Send(ctx, a)
	return f.in.EventBase + len(f.events), nil
}

// cleanupContext is the context of the tool batch that records a
// question's call, and those after it, as cancelled once the workflow was
// cancelled: one the cancellation does not end, and bounded, since
// nothing waits for it (without it, the next run's history repair answers
// those calls).
func (f *flow) cleanupContext() workflow.Context {
	ctx, _ := workflow.NewDisconnectedContext(f.ctx)
	opts := f.activityOptions()
	opts.ScheduleToCloseTimeout = 2 * time.Minute
	return workflow.WithActivityOptions(ctx, opts)
}

// emitEnvelope records an event that is not an engine event: its type and
// v's JSON.
func (f *flow) emitEnvelope(typ string, v any) {
	data, err := json.Marshal(v)
	if err == nil {
		f.events = append(f.events, Envelope{Type: typ, Data: data})
	}
}
