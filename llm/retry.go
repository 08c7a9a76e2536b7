package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults of a zero RetryPolicy.
const (
	DefaultMaxRetries = 3
	DefaultBaseDelay  = 250 * time.Millisecond
	DefaultMaxDelay   = 4 * time.Second
	DefaultMaxTotal   = 6 * time.Second
)

// RetryPolicy bounds how a provider retries a failed model call. Only
// failures before any chunk reached the consumer are retried: a stream that
// was partly delivered is never replayed. Rate limits (429), 408, server
// errors (5xx) and connection failures are retried with exponential backoff
// and jitter; a server's Retry-After (or retry-after-ms) is honoured as the
// minimum wait, and a server asking for longer than MaxDelay ends the retries.
//
// The zero value uses the defaults: 3 retries, 250ms base delay, 4s per wait,
// 6s of waiting in all.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt; 0 means
	// DefaultMaxRetries and a negative value disables retrying.
	MaxRetries int
	// BaseDelay is the first backoff; each retry doubles it.
	BaseDelay time.Duration
	// MaxDelay caps a single wait.
	MaxDelay time.Duration
	// MaxTotal caps the sum of all waits of one call.
	MaxTotal time.Duration
	// Sleep waits d or until ctx is done; nil uses a timer. Tests inject a
	// recorder so they never wait.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a number in [0,1); nil uses math/rand.
	Jitter func() float64
}

// NoRetry is a policy that makes exactly one attempt.
var NoRetry = RetryPolicy{MaxRetries: -1}

// WithDefaults returns p with its zero fields set to the defaults (and a
// negative MaxRetries to 0): the limits Do applies, for a caller that
// retries in a loop of its own.
func (p RetryPolicy) WithDefaults() RetryPolicy { return p.withDefaults() }

func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = DefaultMaxRetries
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxTotal <= 0 {
		p.MaxTotal = DefaultMaxTotal
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	if p.Jitter == nil {
		p.Jitter = rand.Float64
	}
	return p
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Backoff returns the wait before retry number retry (0-based): BaseDelay
// doubled per retry, capped at MaxDelay, with "equal jitter" (between half
// and all of it) so that clients do not retry in lockstep.
func (p RetryPolicy) Backoff(retry int) time.Duration {
	p = p.withDefaults()
	d := p.MaxDelay
	if retry < 30 {
		d = min(p.BaseDelay<<retry, p.MaxDelay)
	}
	half := d / 2
	return half + time.Duration(p.Jitter()*float64(d-half))
}

// Attempt is called once per try of a call. It reports whether any chunk
// reached the consumer (then the call is never retried) and the error, nil on
// success.
type Attempt func(ctx context.Context) (delivered bool, err error)

// Do runs attempt until it succeeds, fails in a way that cannot be retried,
// has delivered part of its output, or exhausts the policy. A retryable
// failure must be a *ProviderError (see ProviderError.Retryable); its
// RetryAfter is the minimum wait. The returned *ProviderError records the
// number of attempts. A cancelled ctx stops the waiting and returns ctx's
// error wrapped in the last failure.
func (p RetryPolicy) Do(ctx context.Context, attempt Attempt) error {
	p = p.withDefaults()
	var waited time.Duration
	for n := 0; ; n++ {
		delivered, err := attempt(ctx)
		if err == nil {
			return nil
		}
		var perr *ProviderError
		if !errors.As(err, &perr) {
			return err
		}
		perr.Attempts = n + 1
		if delivered || !perr.Retryable() || n >= p.MaxRetries || ctx.Err() != nil {
			return err
		}
		wait := p.Backoff(n)
		if perr.RetryAfter > 0 {
			if perr.RetryAfter > p.MaxDelay {
				return err // the server wants a longer pause than we allow
			}
			wait = max(wait, perr.RetryAfter)
		}
		if waited+wait > p.MaxTotal {
			return err
		}
		waited += wait
		if serr := p.Sleep(ctx, wait); serr != nil {
			return &ProviderError{Provider: perr.Provider, Message: "cancelled while waiting to retry: " + perr.Error(),
				Err: serr, Attempts: n + 1}
		}
	}
}

// RetryAfter parses a response's retry hint: retry-after-ms (milliseconds,
// sent by OpenAI and Anthropic), else Retry-After as delay-seconds or an HTTP
// date relative to now. It reports false when there is no usable hint.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return floatDuration(ms, time.Millisecond), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s >= 0) { // negative or NaN
			return 0, false
		}
		return floatDuration(s, time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// maxRetryAfter caps a parsed retry hint. Any hint this long is refused by
// every sane MaxDelay; the cap only keeps the conversion in range.
const maxRetryAfter = 1000 * time.Hour

// floatDuration converts n units to a Duration, capped at maxRetryAfter: a
// float too large for int64 would otherwise convert to a negative or
// arbitrary value, and a server asking for a very long pause would get
// retried at once.
func floatDuration(n float64, unit time.Duration) time.Duration {
	if n*float64(unit) >= float64(maxRetryAfter) {
		return maxRetryAfter
	}
	return time.Duration(n * float64(unit))
}
