// Package llmtest holds what the provider tests share: a local HTTP server
// that answers each request with the next scripted handler and records what
// it received, and a retry sleeper that records waits instead of sleeping.
package llmtest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Server is a provider endpoint at one path whose nth request is answered by
// handlers[n] (the last one repeats). It records every request's JSON body
// and headers.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   []map[string]any
	headers  []http.Header
	handlers []http.HandlerFunc
}

// NewServer starts a Server answering at path; it closes when t ends.
func NewServer(t testing.TB, path string, handlers ...http.HandlerFunc) *Server {
	t.Helper()
	s := &Server{handlers: handlers}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.Error(w, "unexpected path "+r.URL.Path, http.StatusNotFound)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request body is not JSON: %v", err)
		}
		s.mu.Lock()
		n := len(s.bodies)
		s.bodies = append(s.bodies, body)
		s.headers = append(s.headers, r.Header.Clone())
		h := s.handlers[min(n, len(s.handlers)-1)]
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// Requests returns how many requests arrived.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// Body returns the ith request's decoded JSON body.
func (s *Server) Body(i int) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// Header returns the ith request's headers.
func (s *Server) Header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

// Sleeper records the waits a retry policy asks for instead of sleeping.
type Sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

// Sleep is an llm.RetryPolicy Sleep function.
func (s *Sleeper) Sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waits = append(s.waits, d)
	return nil
}

// Waits returns the waits recorded so far.
func (s *Sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}
