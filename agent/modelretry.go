package agent

import (
	"context"
	"errors"
	"time"

	"github.com/harness9/harness9/llm"
)

// ModelRetry says the model's answer broke off mid-stream with an error
// worth retrying (a dropped connection, a server error sent in the stream):
// what was streamed of it is void, and the call is made again after Wait.
// Front ends drop the partial text they showed.
type ModelRetry struct {
	// Attempt is the number of the attempt about to be made (2 for the
	// first retry).
	Attempt int
	Wait    time.Duration
	Err     error
}

// Type implements Event.
func (ModelRetry) Type() string { return "retry" }

// defaultModelRetry is how an engine without WithModelRetry retries a
// model call whose stream broke off mid-way: at most twice, with the
// default backoff.
var defaultModelRetry = llm.RetryPolicy{MaxRetries: 2}

// WithModelRetry sets how the engine retries a model call whose stream
// broke off after part of the answer arrived, which a provider cannot
// retry itself: p's backoff and limits (usually the provider's own policy;
// llm.NoRetry fails the run at once). Without it such a call is
// made again at most twice, with the default backoff.
func WithModelRetry(p llm.RetryPolicy) Option {
	return func(c *config) { c.modelRetry = &p }
}

// callModel makes one model call (streamOnce). A stream that broke off
// mid-way with a retryable error is made again under the engine's model
// retry policy, each retry announced by a ModelRetry event; none of its
// tool calls has run, since tools run only once a message is complete.
// Failures before any chunk arrived were the provider's to retry, and are
// returned as they are.
func (l *turnLoop) callModel(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, delivered, err := l.streamOnce(ctx, req)
	p := defaultModelRetry
	if l.e.cfg.modelRetry != nil {
		p = *l.e.cfg.modelRetry
	}
	p = p.WithDefaults()
	var waited time.Duration
	for n := 0; ; n++ {
		var pe *llm.ProviderError
		if err == nil || !delivered || ctx.Err() != nil || !errors.As(err, &pe) || !pe.Retryable() {
			return resp, err
		}
		pe.Attempts = n + 1
		wait := p.Backoff(n)
		if n >= p.MaxRetries || waited+wait > p.MaxTotal {
			return resp, err
		}
		waited += wait
		if !l.s.emit(ModelRetry{Attempt: n + 2, Wait: wait, Err: err}) {
			return resp, context.Canceled
		}
		// Info, not a warning: the ModelRetry event already tells every
		// front end, and a warning would say it a second time (the TUI
		// shows the log's warnings as notes).
		l.e.log.InfoContext(ctx, "agent: the model's stream broke off; asking again", "attempt", n+2, "wait", wait, "err", err)
		if serr := p.Sleep(ctx, wait); serr != nil {
			return resp, errors.Join(err, serr)
		}
		resp, delivered, err = l.streamOnce(ctx, req)
	}
}
