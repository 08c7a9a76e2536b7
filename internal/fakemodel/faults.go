package fakemodel

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
)

// Fault is one way a provider fails a model call.
type Fault int

const (
	// Unavailable answers 503 before any part of the answer.
	Unavailable Fault = iota
	// RateLimited answers 429 with Retry-After: 1.
	RateLimited
	// ResetBefore resets the connection before the answer's status line.
	ResetBefore
	// ResetMidStream sends the status and the first half of the answer's
	// events, then resets the connection.
	ResetMidStream
)

// Faulty wraps a Server with the failures of a real provider: Fail makes
// the next calls fail one of the given ways, in turn, until Heal.
type Faulty struct {
	inner *Server

	mu        sync.Mutex
	kinds     []Fault
	remaining int // calls left to fail; negative: every call
	next      int
	failed    atomic.Int64
}

// NewFaulty returns a healthy Faulty over inner.
func NewFaulty(inner *Server) *Faulty { return &Faulty{inner: inner} }

// Fail makes the next n calls fail (every call when n is negative, until
// Heal), each with the next of kinds in turn.
func (f *Faulty) Fail(n int, kinds ...Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kinds, f.remaining, f.next = kinds, n, 0
}

// Heal makes calls succeed again.
func (f *Faulty) Heal() { f.Fail(0) }

// Failed is the number of calls failed so far.
func (f *Faulty) Failed() int64 { return f.failed.Load() }

// fault picks how this call fails; ok false means it does not.
func (f *Faulty) fault() (Fault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.remaining == 0 || len(f.kinds) == 0 {
		return 0, false
	}
	if f.remaining > 0 {
		f.remaining--
	}
	k := f.kinds[f.next%len(f.kinds)]
	f.next++
	return k, true
}

// ServeHTTP fails the call as told, or passes it to the Server.
func (f *Faulty) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k, ok := f.fault()
	if !ok {
		f.inner.ServeHTTP(w, r)
		return
	}
	f.failed.Add(1)
	switch k {
	case Unavailable:
		http.Error(w, `{"error":{"message":"the stand-in model is overloaded","type":"server_error"}}`, http.StatusServiceUnavailable)
	case RateLimited:
		w.Header().Set("Retry-After", "1")
		http.Error(w, `{"error":{"message":"rate limit reached","type":"rate_limit_error"}}`, http.StatusTooManyRequests)
	case ResetBefore:
		reset(w)
	case ResetMidStream:
		rec := httptest.NewRecorder()
		f.inner.ServeHTTP(rec, r)
		events := bytes.SplitAfter(rec.Body.Bytes(), []byte("\n\n"))
		w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
		w.WriteHeader(rec.Code)
		for _, ev := range events[:max(len(events)/2, 1)] {
			_, _ = w.Write(ev)
		}
		_ = http.NewResponseController(w).Flush()
		reset(w)
	}
}

// reset closes the request's connection with a TCP reset.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
