package agent

import (
	"context"
	"fmt"

	"github.com/harness9/harness9/tool"
)

// InputRequest asks the user for input a running tool needs: an MCP
// server's elicitation, a form of typed fields or a page to open. Only an
// engine built WithUserInput emits it; the call waits until Respond is
// called or the run ends (the question is then cancelled). Respond may be
// called from any goroutine, once.
type InputRequest struct {
	// CallID is the running call's id (its ToolCall event).
	CallID   string
	Question tool.Question
	reply    chan tool.Answer
}

// NewInputRequest is a request for q on behalf of call callID; the engine
// makes them, a front end's tests may too.
func NewInputRequest(callID string, q tool.Question) *InputRequest {
	return &InputRequest{CallID: callID, Question: q, reply: make(chan tool.Answer, 1)}
}

// Wait blocks until the request is answered or ctx ends.
func (r *InputRequest) Wait(ctx context.Context) (tool.Answer, error) {
	select {
	case <-ctx.Done():
		return tool.Answer{}, ctx.Err()
	case a := <-r.reply:
		return a, nil
	}
}

// Respond answers the request.
func (r *InputRequest) Respond(a tool.Answer) {
	select {
	case r.reply <- a:
	default: // already answered
	}
}

// Type is the event's JSONL name.
func (*InputRequest) Type() string { return "input_request" }

// WithUserInput says the consumer of the engine's events answers
// InputRequest events (a terminal UI): tools may then ask the user while
// they run. Without it they are told nobody can answer (tool.AskerFrom is
// nil), and an MCP server's request is declined.
func WithUserInput(on bool) Option { return func(c *config) { c.userInput = on } }

// asker is the Asker of call id: it puts the question to the user through
// an InputRequest, except in a read-only mode (planning), when only a question that
// cannot lead to a change (tool.Question.ReadOnly) is asked and any other
// is declined, with a line in the call's output saying so.
func (l *turnLoop) asker(q *eventQueue, id string) tool.Asker {
	return func(ctx context.Context, question tool.Question) (tool.Answer, error) {
		if l.policy.ReadOnly && !question.ReadOnly {
			q.output(id, fmt.Sprintf("%s asked for input while planning; declined, because it can change things\n", question.From))
			return tool.Answer{Action: tool.Decline}, nil
		}
		req := NewInputRequest(id, question)
		q.push(req)
		return req.Wait(ctx)
	}
}
