package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

type recorder struct{ waits []time.Duration }

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return nil
}

func policy(r *recorder) RetryPolicy {
	return RetryPolicy{Sleep: r.sleep, Jitter: func() float64 { return 0.999 }}
}

func failing(status int, after time.Duration) Attempt {
	return func(context.Context) (bool, error) {
		return false, &ProviderError{Provider: "test", Status: status, Message: "nope", RetryAfter: after}
	}
}

func TestDoRetriesWithBackoff(t *testing.T) {
	r := &recorder{}
	n := 0
	err := policy(r).Do(context.Background(), func(ctx context.Context) (bool, error) {
		n++
		return failing(503, 0)(ctx)
	})
	var perr *ProviderError
	if !errors.As(err, &perr) || perr.Attempts != 4 || n != 4 {
		t.Fatalf("err = %v, attempts %d", err, n)
	}
	// ~250ms, ~500ms, ~1s (jitter near 1).
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}
	for i, w := range r.waits {
		if w > want[i] || w < want[i]/2 {
			t.Errorf("wait %d = %v, want about %v", i, w, want[i])
		}
	}
	if !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("error %q does not say how often it tried", err)
	}
}

func TestDoStopsOnSuccess(t *testing.T) {
	r := &recorder{}
	n := 0
	err := policy(r).Do(context.Background(), func(ctx context.Context) (bool, error) {
		n++
		if n < 3 {
			return failing(429, 0)(ctx)
		}
		return false, nil
	})
	if err != nil || n != 3 || len(r.waits) != 2 {
		t.Errorf("err %v after %d attempts, waits %v", err, n, r.waits)
	}
}

func TestDoNoRetry(t *testing.T) {
	cases := map[string]struct {
		policy    RetryPolicy
		attempt   Attempt
		wantTries int
	}{
		"client error": {RetryPolicy{}, failing(400, 0), 1},
		"delivered": {RetryPolicy{}, func(context.Context) (bool, error) {
			return true, &ProviderError{Provider: "p", Err: io.ErrUnexpectedEOF}
		}, 1},
		"malformed": {RetryPolicy{}, func(context.Context) (bool, error) {
			return false, &ProviderError{Provider: "p", Err: errors.New("invalid character")}
		}, 1},
		"plain error":                 {RetryPolicy{}, func(context.Context) (bool, error) { return false, errors.New("x") }, 1},
		"NoRetry":                     {NoRetry, failing(500, 0), 1},
		"retry-after beyond MaxDelay": {RetryPolicy{}, failing(429, time.Minute), 1},
		"two retries":                 {RetryPolicy{MaxRetries: 2}, failing(502, 0), 3},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := &recorder{}
			c.policy.Sleep = r.sleep
			n := 0
			err := c.policy.Do(context.Background(), func(ctx context.Context) (bool, error) {
				n++
				return c.attempt(ctx)
			})
			if err == nil || n != c.wantTries {
				t.Errorf("err %v after %d attempts, want %d", err, n, c.wantTries)
			}
		})
	}
}

func TestDoHonoursRetryAfterAndBudget(t *testing.T) {
	r := &recorder{}
	p := policy(r)
	p.MaxTotal = 5 * time.Second
	err := p.Do(context.Background(), failing(429, 2*time.Second))
	// 2s + 2s fit in 5s, a third 2s wait does not.
	if err == nil || len(r.waits) != 2 || r.waits[0] != 2*time.Second {
		t.Errorf("err %v, waits %v", err, r.waits)
	}
}

func TestDoCancelledWhileWaiting(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return ctx.Err()
	}}
	err := p.Do(ctx, failing(500, 0))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestDefaultSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep = %v", err)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond, true},
		{http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second, true},
		{http.Header{"Retry-After": {now.Add(-time.Hour).Format(http.TimeFormat)}}, 0, true},
		{http.Header{"Retry-After-Ms": {"120"}, "Retry-After": {"9"}}, 120 * time.Millisecond, true},
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{"Retry-After": {"-1"}}, 0, false},
		{http.Header{}, 0, false},
		// Values past time.Duration's range mean "much later than we wait",
		// not a wrapped-around negative or zero delay; NaN means nothing.
		{http.Header{"Retry-After": {"1e300"}}, maxRetryAfter, true},
		{http.Header{"Retry-After": {"99999999999"}}, maxRetryAfter, true},
		{http.Header{"Retry-After": {"+Inf"}}, maxRetryAfter, true},
		{http.Header{"Retry-After-Ms": {"1e20"}}, maxRetryAfter, true},
		{http.Header{"Retry-After": {"NaN"}}, 0, false},
		{http.Header{"Retry-After-Ms": {"NaN"}, "Retry-After": {"2"}}, 2 * time.Second, true},
	}
	for _, c := range cases {
		got, ok := RetryAfter(c.h, now)
		if got != c.want || ok != c.ok {
			t.Errorf("RetryAfter(%v) = %v, %v; want %v, %v", c.h, got, ok, c.want, c.ok)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	cases := map[string]string{
		`{"error":{"message":"Rate limit reached","type":"requests"}}`:                "Rate limit reached",
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: "Overloaded",
		`{"error":"model 'x' not found"}`:                                             "model 'x' not found",
		`{"message":"bad gateway"}`:                                                   "bad gateway",
		`{"detail":[{"loc":["body"],"msg":"field required"}]}`:                        `[{"loc":["body"],"msg":"field required"}]`,
		"<html>502 Bad Gateway</html>":                                                "<html>502 Bad Gateway</html>",
		strings.Repeat("x", 600):                                                      strings.Repeat("x", 500) + "…",
	}
	for body, want := range cases {
		if got := ErrorMessage([]byte(body)); got != want {
			t.Errorf("ErrorMessage(%.40q) = %q, want %q", body, got, want)
		}
	}
}

func TestProviderError(t *testing.T) {
	cause := fmt.Errorf("read: %w", io.ErrUnexpectedEOF)
	cases := []struct {
		err       *ProviderError
		text      string
		retryable bool
	}{
		{&ProviderError{Provider: "openai", Status: 429, Message: "slow down", Attempts: 4},
			"openai: HTTP 429 Too Many Requests: slow down (after 4 attempts)", true},
		{&ProviderError{Provider: "anthropic", Status: 529, Message: "Overloaded"}, "anthropic: HTTP 529: Overloaded", true},
		{&ProviderError{Provider: "ollama", Status: 404, Message: "model not found"}, "ollama: HTTP 404 Not Found: model not found", false},
		{&ProviderError{Provider: "openai", Err: cause}, "openai: read: unexpected EOF", true},
		{&ProviderError{Provider: "openai", Message: "cancelled", Err: context.Canceled}, "openai: cancelled", false},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.text {
			t.Errorf("Error() = %q, want %q", got, c.text)
		}
		if got := c.err.Retryable(); got != c.retryable {
			t.Errorf("%q Retryable() = %v", c.text, got)
		}
	}
	if !errors.Is(cases[3].err, io.ErrUnexpectedEOF) {
		t.Error("Unwrap does not reach the cause")
	}
}
