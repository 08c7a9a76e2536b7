package service

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits protect the server from its callers. A run (a prompt, a plan's
// approval or refinement, a continuation) beyond MaxRuns or MaxRunsPerToken
// waits in a queue, first come first served, and starts when a slot frees;
// the queue holds at most MaxQueued. Requests beyond a token's Rate, runs
// beyond a full queue and event streams beyond MaxStreams are answered 429
// with Retry-After. Zero means no limit.
type Limits struct {
	// MaxRuns bounds the runs in progress in all; MaxRunsPerToken those
	// of one token.
	MaxRuns, MaxRunsPerToken int
	// MaxQueued bounds the runs waiting for a slot.
	MaxQueued int
	// Rate is the requests per second one token may make on average,
	// Burst how many it may make at once.
	Rate  float64
	Burst int
	// MaxStreams bounds the event streams connected to one session.
	MaxStreams int
}

// Defaults of Limits: a small machine runs a few agents at a time (each a
// model stream and its commands), a browser page polls nothing (it holds
// one event stream), and a script creating sessions in a loop is slowed,
// not refused.
const (
	DefaultMaxRuns         = 8
	DefaultMaxRunsPerToken = 4
	DefaultMaxQueued       = 256
	DefaultRate            = 20
	DefaultBurst           = 40
	DefaultMaxStreams      = 16
)

// DefaultLimits are the limits of a server made without WithLimits.
func DefaultLimits() Limits {
	return Limits{MaxRuns: DefaultMaxRuns, MaxRunsPerToken: DefaultMaxRunsPerToken, MaxQueued: DefaultMaxQueued,
		Rate: DefaultRate, Burst: DefaultBurst, MaxStreams: DefaultMaxStreams}
}

// WithLimits sets the server's limits (default DefaultLimits). Under a
// runner whose sessions run elsewhere (Detached) the run limits do not
// apply: the workers' own slots bound the work.
func WithLimits(l Limits) Option { return func(s *Server) { s.limits = l } }

// tooManyError is a 429: a limit was reached; retry after the given time.
type tooManyError struct {
	msg   string
	after time.Duration
}

func (e *tooManyError) Error() string { return e.msg }

// retryAfter is the Retry-After header's value: whole seconds, at least 1.
func (e *tooManyError) retryAfter() string {
	return fmt.Sprint(max(1, int(math.Ceil(e.after.Seconds()))))
}

// ticket is one run's claim on a slot: granted is closed when it may start.
type ticket struct {
	token, session string
	granted        chan struct{}
	held           bool // granted and not yet given back
}

// runSlots grants runs their slots under the run limits.
type runSlots struct {
	max, perToken, maxQueued int

	mu     sync.Mutex
	active int
	byTok  map[string]int
	queue  []*ticket
}

func newRunSlots(l Limits) *runSlots {
	return &runSlots{max: l.MaxRuns, perToken: l.MaxRunsPerToken, maxQueued: l.MaxQueued, byTok: map[string]int{}}
}

// fits reports whether a run of token may start now. Called with mu held.
func (q *runSlots) fits(token string) bool {
	return (q.max <= 0 || q.active < q.max) && (q.perToken <= 0 || q.byTok[token] < q.perToken)
}

// grant starts t. Called with mu held.
func (q *runSlots) grant(t *ticket) {
	q.active++
	q.byTok[t.token]++
	t.held = true
	close(t.granted)
}

// take claims a slot for a run of session by token: granted at once when
// one is free, else queued. (No run that fits waits: give starts every
// queued run that fits as soon as it does, so a run granted at once never
// overtakes one that could have started.) A full queue gives a
// *tooManyError.
func (q *runSlots) take(token, session string) (*ticket, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := &ticket{token: token, session: session, granted: make(chan struct{})}
	if q.fits(token) {
		q.grant(t)
		return t, nil
	}
	if q.maxQueued > 0 && len(q.queue) >= q.maxQueued {
		return nil, &tooManyError{msg: fmt.Sprintf("%d runs are waiting for a slot already (limit %d, [serve] max_queued); retry later", len(q.queue), q.maxQueued),
			after: 10 * time.Second}
	}
	q.queue = append(q.queue, t)
	return t, nil
}

// give returns t's slot, or takes t out of the queue, and starts the runs
// that fit now, in order.
func (q *runSlots) give(t *ticket) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if t.held {
		t.held = false
		q.active--
		q.byTok[t.token]--
		if q.byTok[t.token] == 0 {
			delete(q.byTok, t.token)
		}
	} else {
		for i, w := range q.queue {
			if w == t {
				q.queue = append(q.queue[:i], q.queue[i+1:]...)
				break
			}
		}
	}
	rest := q.queue[:0]
	for _, w := range q.queue {
		if q.fits(w.token) {
			q.grant(w)
			continue
		}
		rest = append(rest, w)
	}
	clear(q.queue[len(rest):])
	q.queue = rest
}

// name sets the session of a ticket taken before the session existed.
func (q *runSlots) name(t *ticket, session string) {
	if t == nil {
		return
	}
	q.mu.Lock()
	t.session = session
	q.mu.Unlock()
}

// position is session's place in the queue (1 is next), 0 when it waits
// for nothing.
func (q *runSlots) position(session string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, w := range q.queue {
		if w.session == session {
			return i + 1
		}
	}
	return 0
}

// rates keeps one token bucket per token.
type rates struct {
	limit rate.Limit
	burst int

	mu sync.Mutex
	by map[string]*rate.Limiter
}

func newRates(l Limits) *rates {
	return &rates{limit: rate.Limit(l.Rate), burst: max(l.Burst, 1), by: map[string]*rate.Limiter{}}
}

// allow takes one request from token's bucket, or says how long until it
// could.
func (r *rates) allow(token string) error {
	if r.limit <= 0 {
		return nil
	}
	r.mu.Lock()
	lim := r.by[token]
	if lim == nil {
		lim = rate.NewLimiter(r.limit, r.burst)
		r.by[token] = lim
	}
	r.mu.Unlock()
	res := lim.Reserve()
	if d := res.Delay(); d > 0 {
		res.Cancel()
		return &tooManyError{msg: fmt.Sprintf("token %q sent more than %g requests a second ([serve] rate, burst %d); retry after the Retry-After seconds",
			token, float64(r.limit), r.burst), after: d}
	}
	return nil
}
