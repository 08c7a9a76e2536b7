package service

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sort"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/eventjson"
	"github.com/harness9/harness9/planning"
)

// live is the server's side of one session: its event hub, and while the
// server drives it, the open Session, the run in progress and the
// permission asks waiting for an answer.
type live struct {
	srv *Server
	id  string
	hub *hub

	mu      sync.Mutex
	sess    Session // nil until an action opens the session
	running bool
	cancel  context.CancelFunc
	asks    map[string]*agent.ApprovalRequest
	// settled are the asks of the run in progress answered already: a
	// second answer is a conflict, not a missing ask.
	settled map[string]bool
	// watchers counts the event streams connected; last is when the
	// session was last used; released says the idle sweep dropped this
	// record (a request that still holds it takes a new one).
	watchers int
	last     time.Time
	released bool
	// lastRun is how the newest run this server drove ended (a Done
	// event's status): the session's status goes back to idle when a plan
	// completes, and the outcome must still be visible.
	lastRun string
	// ticket is the run slot of the claim begin took for a caller (nil
	// for work the server follows on its own, or without run limits).
	ticket *ticket
}

// conflictError is an action the session's state does not allow now (409).
type conflictError struct{ msg string }

func (e *conflictError) Error() string { return e.msg }

func conflict(format string, args ...any) error { return &conflictError{fmt.Sprintf(format, args...)} }

// begin claims the open session for one run and returns it; the caller
// must call start or end. A claim for a caller (who names its token) takes
// a run slot too: it may have to wait in the queue (start waits), and a
// full queue refuses it (429).
func (l *live) begin(who string) (Session, error) {
	return l.claim(func() (*ticket, error) {
		if who == "" || l.srv.detached() {
			return nil, nil
		}
		return l.srv.slots.take(who, l.id)
	})
}

// beginWith is begin with a run slot taken beforehand (slots.take), which
// it gives back if the claim fails.
func (l *live) beginWith(t *ticket) (Session, error) {
	sess, err := l.claim(func() (*ticket, error) { return t, nil })
	if err != nil && t != nil {
		l.srv.slots.give(t)
	}
	return sess, err
}

// claim marks the session running, with the slot slot takes.
func (l *live) claim(slot func() (*ticket, error)) (Session, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil, conflict("session %s was released as idle while this request reached it; retry", l.id)
	}
	if l.sess == nil {
		return nil, conflict("session %s is not open: the server is shutting down; retry after it restarts", l.id)
	}
	if l.running {
		return nil, conflict("session %s is running; wait for its done event or cancel it (POST /api/sessions/%s/cancel)", l.id, l.id)
	}
	t, err := slot()
	if err != nil {
		return nil, err
	}
	l.ticket = t
	l.running = true
	return l.sess, nil
}

// end gives the claim back (and its run slot) and tells subscribers the
// state.
func (l *live) end() {
	l.release()
	l.publishState()
}

// release gives the claim back (and its run slot).
func (l *live) release() {
	l.mu.Lock()
	l.running, l.cancel, l.last = false, nil, time.Now()
	t := l.ticket
	l.ticket = nil
	clear(l.asks)
	clear(l.settled)
	l.mu.Unlock()
	if t != nil {
		l.srv.slots.give(t)
	}
}

// start runs events in the background under a claim taken with begin,
// once its run slot is granted. A run cancelled while it waits for one
// ends cancelled without starting. The run outlives the request that
// started it (rctx), but belongs to its trace: its spans are the request
// span's children.
func (l *live) start(rctx context.Context, events func(context.Context) iter.Seq[agent.Event]) error {
	ctx, cancel, ok := l.srv.runContext()
	if !ok {
		l.end()
		return conflict("the server is shutting down; retry after it restarts")
	}
	if sc := trace.SpanContextFromContext(rctx); sc.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, sc)
	}
	l.mu.Lock()
	l.cancel = cancel
	t := l.ticket
	l.mu.Unlock()
	go func() {
		defer l.srv.runs.Done()
		defer cancel()
		done := l.run(ctx, t, events)
		// The run's done event goes out once the session is free: a
		// client that reviews or prompts as soon as it reads done (as the
		// busy answer tells it to) is not refused as busy. The state
		// event follows it.
		l.release()
		if done != nil {
			l.hub.publish(done)
		}
		l.publishState()
	}()
	return nil
}

// run sends the events of a run to the subscribers once its slot is
// granted, and returns its last done event (nil if none), held back until
// the run has ended. An earlier done (a run may carry on after one) goes
// out, in order, as soon as another event follows it.
func (l *live) run(ctx context.Context, t *ticket, events func(context.Context) iter.Seq[agent.Event]) eventjson.Object {
	if !l.await(ctx, t) {
		l.setLastRun(agent.RunCancelled)
		return eventjson.Object{}.Set("type", "done", "status", string(agent.RunCancelled))
	}
	var held eventjson.Object
	for ev := range events(ctx) {
		if held != nil {
			l.hub.publish(held)
			held = nil
		}
		switch ev := ev.(type) {
		case *agent.ApprovalRequest:
			l.ask(ev)
			continue
		case AskAnswered:
			l.settle(ev.ID)
			l.hub.publish(answeredObject(ev))
			continue
		case agent.Done:
			l.setLastRun(ev.Status)
			held = eventjson.Event(ev)
			continue
		}
		if o := eventjson.Event(ev); o != nil {
			l.hub.publish(o)
		}
	}
	return held
}

// setLastRun records how the last run ended.
func (l *live) setLastRun(s agent.RunStatus) {
	l.mu.Lock()
	l.lastRun = string(s)
	l.mu.Unlock()
}

// await waits for t's slot, announcing the queue position first; false
// means the run was cancelled while it waited.
func (l *live) await(ctx context.Context, t *ticket) bool {
	if t == nil {
		return true
	}
	select {
	case <-t.granted:
		return true
	default:
	}
	l.hub.publish(eventjson.Object{}.Set("type", "queued", "position", l.srv.slots.position(l.id)))
	select {
	case <-t.granted:
		return true
	case <-ctx.Done():
		return false
	}
}

// streams is the number of event streams connected.
func (l *live) streams() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.watchers
}

// ask registers a permission ask and announces it.
func (l *live) ask(req *agent.ApprovalRequest) {
	l.mu.Lock()
	if l.asks == nil {
		l.asks = map[string]*agent.ApprovalRequest{}
	}
	l.asks[req.Call.ID] = req
	l.mu.Unlock()
	l.hub.publish(askObject(req))
}

func askObject(req *agent.ApprovalRequest) eventjson.Object {
	rules := req.Rules
	if rules == nil {
		rules = []string{}
	}
	return eventjson.Object{}.Set("type", "permission_ask", "id", req.Call.ID, "tool", req.Call.Name,
		"input", eventjson.RawOrEmpty(req.Call.Input), "preview", req.Preview, "why", req.Why, "rules", rules)
}

// settle forgets a waiting ask, and reports whether it was waiting.
func (l *live) settle(id string) (*agent.ApprovalRequest, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	req, ok := l.asks[id]
	delete(l.asks, id)
	if l.settled == nil {
		l.settled = map[string]bool{}
	}
	answered := l.settled[id]
	l.settled[id] = true
	return req, ok && !answered
}

func answeredObject(a AskAnswered) eventjson.Object {
	o := eventjson.Object{}.Set("type", "permission_answered", "id", a.ID, "answer", a.Answer)
	if a.Unanswered {
		o = o.Set("unanswered", true)
	}
	return o
}

// pendingAsks lists the asks waiting for an answer, by id: an Asker's
// from where they wait (the ones its events announced, when it cannot be
// asked), else those of the run in progress.
func (l *live) pendingAsks(ctx context.Context) []*agent.ApprovalRequest {
	l.mu.Lock()
	sess := l.sess
	l.mu.Unlock()
	if a, ok := sess.(Asker); ok {
		if asks, err := a.Asks(ctx); err == nil {
			return asks
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*agent.ApprovalRequest, 0, len(l.asks))
	for _, r := range l.asks {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Call.ID < out[j].Call.ID })
	return out
}

// answer settles one permission ask, once: a second answer is a conflict.
// An Asker's ask is answered where it waits, and its event stream reports
// the answer.
func (l *live) answer(ctx context.Context, askID, answer, reason string) error {
	l.mu.Lock()
	sess := l.sess
	l.mu.Unlock()
	if a, ok := sess.(Asker); ok {
		err := a.Answer(ctx, askID, answer, reason)
		switch {
		case errors.Is(err, ErrAskAnswered):
			return conflict("%v", err)
		case errors.Is(err, ErrNoAsk):
			return &notFoundError{err.Error()}
		}
		return err
	}
	l.mu.Lock()
	_, known := l.settled[askID]
	l.mu.Unlock()
	req, ok := l.settle(askID)
	switch {
	case !ok && known:
		return conflict("the permission ask %q of session %s was answered already", askID, l.id)
	case !ok:
		return &notFoundError{fmt.Sprintf("no permission ask %q is waiting in session %s (its run ended, or it never was)", askID, l.id)}
	}
	d, err := req.Decision(answer)
	if err != nil {
		return badReq("%v", err)
	}
	req.Respond(d, reason)
	l.hub.publish(answeredObject(AskAnswered{ID: askID, Answer: answer}))
	return nil
}

// review carries out a review choice, exactly once: of two reviewers
// answering the same plan at once, one gets a conflict.
func (l *live) review(rctx context.Context, who string, choice planning.ReviewChoice, feedback string) error {
	sess, err := l.begin(who)
	if err != nil {
		return err
	}
	if st := sess.Snapshot().Status; st != planning.StatusAwaitingApproval {
		l.end()
		return conflict("session %s has no plan awaiting approval (status %s); it may have been reviewed already", l.id, st)
	}
	start, err := sess.Review(choice, feedback)
	if err != nil {
		l.end()
		return conflict("review: %v", err)
	}
	l.hub.publish(eventjson.Object{}.Set("type", "review", "choice", choiceName(choice), "feedback", feedback))
	if start == nil {
		l.end()
		return nil
	}
	return l.start(rctx, start)
}

// stop cancels the run in progress. A Remote session's work is cancelled
// where it runs; the run following it here then ends by itself.
func (l *live) stop(ctx context.Context) error {
	l.mu.Lock()
	sess, running, cancel := l.sess, l.running, l.cancel
	l.mu.Unlock()
	if rem, ok := sess.(Remote); ok {
		if err := rem.Cancel(ctx); err != nil {
			return conflict("session %s has no run in progress: %v", l.id, err)
		}
		return nil
	}
	if !running || cancel == nil {
		return conflict("session %s has no run in progress", l.id)
	}
	cancel()
	return nil
}

// publishState tells subscribers the session's status after a change.
func (l *live) publishState() {
	l.mu.Lock()
	sess, running, lastRun := l.sess, l.running, l.lastRun
	l.mu.Unlock()
	if sess == nil {
		return
	}
	snap := sess.Snapshot()
	o := eventjson.Object{}.Set("type", "state", "status", string(snap.Status), "mode", snap.Mode.String(),
		"running", running, "next", snap.Next.String())
	if lastRun != "" {
		o = o.Set("last_run", lastRun)
	}
	l.hub.publish(o)
}

// Review choices as the API names them.
var reviewChoices = map[string]planning.ReviewChoice{
	"approve_auto":    planning.ReviewApprove,
	"approve_confirm": planning.ReviewApproveConfirm,
	"refine":          planning.ReviewRefine,
	"cancel":          planning.ReviewCancel,
}

func choiceName(c planning.ReviewChoice) string {
	for k, v := range reviewChoices {
		if v == c {
			return k
		}
	}
	return c.String()
}

func choiceNames() string {
	names := make([]string, 0, len(reviewChoices))
	for k := range reviewChoices {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
