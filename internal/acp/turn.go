package acp

import (
	"context"
	"errors"
	"fmt"
	"iter"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
)

// Prompt implements sdk.Agent: one turn of a session. Turns of a session
// run one at a time; session/cancel (or a newer prompt) cancels the
// running one, which ends with stop reason "cancelled" once its state is
// saved.
func (s *server) Prompt(ctx context.Context, p sdk.PromptRequest) (resp sdk.PromptResponse, err error) {
	defer s.guard("session/prompt", &err)
	ss, err := s.session(p.SessionId)
	if err != nil {
		return resp, err
	}
	select {
	case <-ss.turn:
	case <-ss.gone:
		return resp, notFound(fmt.Sprintf("session %s was closed", ss.id))
	case <-ctx.Done():
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	defer func() { ss.turn <- struct{}{} }()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ss.mu.Lock()
	ss.cancel = cancel
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		ss.cancel = nil
		ss.mu.Unlock()
	}()
	t := &turn{ss: ss, ctx: ctx, calls: map[string]*callView{}}
	stop, err := t.start(p.Prompt)
	if err != nil {
		return resp, err
	}
	return sdk.PromptResponse{StopReason: stop}, nil
}

// turn is one prompt turn: what the client has been shown of it.
type turn struct {
	ss    *sess
	ctx   context.Context
	calls map[string]*callView // by the call's id as the client knows it

	streamed   bool   // the current assistant message came as deltas
	lastResult string // the id of the last tool result, "" once something else came
	planCall   string // the submit_plan call whose plan awaits review
	planFresh  bool   // a plan was submitted in this turn
}

// start reads the prompt and runs it: a built-in command, a custom
// command, or a prompt for the model.
func (t *turn) start(blocks []sdk.ContentBlock) (sdk.StopReason, error) {
	in, err := t.ss.readPrompt(t.ctx, blocks)
	if err != nil {
		return "", err
	}
	if cmd, arg, ok := findBuiltin(in.text); ok {
		return cmd.run(t, arg, in)
	}
	return t.send(in)
}

// send runs the user's prompt (a custom command expanded) in the model.
func (t *turn) send(in promptInput) (sdk.StopReason, error) {
	text, opts := in.text, agent.RunOptions{}
	if expanded, o, note, ok := t.ss.rt.Expand(text); ok {
		if note != "" {
			t.thought(note)
		}
		text, opts = expanded, o
	}
	opts.Images = in.images
	text, err := t.ss.attach(t, text, in)
	if err != nil {
		return "", err
	}
	return t.play(t.ss.eng.RunWith(t.ctx, text, opts))
}

// play shows a stream to the client and returns the turn's stop reason;
// a plan submitted in it is put to the user for review.
func (t *turn) play(events iter.Seq[agent.Event]) (sdk.StopReason, error) {
	var done agent.Done
	for ev := range events {
		if d, ok := ev.(agent.Done); ok {
			done = d
			continue
		}
		t.event(ev)
	}
	t.ss.syncMode()
	switch done.Status {
	case agent.RunAwaitingApproval:
		if t.planFresh {
			return t.review()
		}
		return sdk.StopReasonEndTurn, nil
	case agent.RunCompleted:
		return sdk.StopReasonEndTurn, nil
	case agent.RunStalled:
		t.message("\n\nAuto-execution stopped: several rounds made no progress on the todo list. " +
			"Say what to do next, or send /continue to try again.")
		return sdk.StopReasonEndTurn, nil
	case agent.RunMaxTurns:
		return sdk.StopReasonMaxTurnRequests, nil
	case agent.RunCancelled:
		return sdk.StopReasonCancelled, nil
	}
	if t.ctx.Err() != nil {
		return sdk.StopReasonCancelled, nil
	}
	if errors.Is(done.Err, agent.ErrPromptBlocked) {
		t.message(done.Err.Error())
		return sdk.StopReasonRefusal, nil
	}
	err := done.Err
	if err == nil {
		err = errors.New("the run failed")
	}
	return "", internalError(err)
}

// review puts the plan awaiting approval to the user as a permission
// request whose options are the review's choices, and carries out the
// choice through the engine, exactly as the TUI's dialog does.
func (t *turn) review() (sdk.StopReason, error) {
	plan := t.ss.eng.Plan()
	if plan == nil || t.ss.eng.NextStep() != planning.StepReview {
		return sdk.StopReasonEndTurn, nil
	}
	choice, ok := t.askReview(*plan)
	if !ok {
		if t.ctx.Err() != nil {
			return sdk.StopReasonCancelled, nil
		}
		t.message("\n\nThe plan is kept for review: send /review to decide about it, or say what to change.")
		return sdk.StopReasonEndTurn, nil
	}
	start, err := t.ss.eng.Review(choice, "")
	if err != nil {
		return "", internalError(err)
	}
	t.ss.syncMode()
	switch {
	case start != nil:
		t.planFresh = false
		return t.play(start(t.ctx))
	case choice == planning.ReviewCancel:
		t.ss.sendPlan(nil)
		t.message("\n\nPlan cancelled.")
	default:
		t.message("\n\nThe plan is kept. Say what to change and it is revised in Plan mode.")
	}
	return sdk.StopReasonEndTurn, nil
}

// message adds text to the agent's reply.
func (t *turn) message(text string) {
	t.ss.update(sdk.UpdateAgentMessageText(text))
}

// thought shows text as the agent's thinking (what the harness did on the
// side: an attachment, an execution round).
func (t *turn) thought(text string) {
	t.ss.update(sdk.UpdateAgentThoughtText(text))
}

// update sends one session/update notification. Updates of a cancelled
// turn are still sent (they say how it ended), so the context is detached.
func (ss *sess) update(u sdk.SessionUpdate) {
	err := ss.srv.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: ss.id, Update: u})
	if err != nil {
		ss.srv.log.Warn("acp: could not send a session update", "session", ss.id, "err", err)
	}
}
