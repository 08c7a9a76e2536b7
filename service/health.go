package service

import (
	"context"
	"net/http"
	"time"

	"github.com/harness9/harness9/session"
)

// readyTimeout bounds each check of /readyz: an orchestrator polls it, and
// a dependency that does not answer in time is not ready.
const readyTimeout = 2 * time.Second

// Readier is implemented by a Runner that depends on a service of its own
// (the Temporal frontend for durable workflows): /readyz checks it and
// reports it under ReadyName.
type Readier interface {
	Ready(ctx context.Context) error
	ReadyName() string
}

// pinger is implemented by stores that can check their database cheaply.
type pinger interface {
	Ping(ctx context.Context) error
}

// healthz is liveness: the process answers HTTP. No token is needed.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz is readiness: the server accepts work and its store (and its
// runner's service, if any) answers, each within readyTimeout. 503 names
// what is not ready. No token is needed; messages carry no secrets (store
// errors are redacted).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	checks := map[string]string{}
	ready := true
	check := func(name string, f func(context.Context) error) {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := f(ctx); err != nil {
			checks[name], ready = err.Error(), false
			return
		}
		checks[name] = "ok"
	}
	if !s.accepting() {
		checks["server"], ready = "shutting down", false
	}
	check("store", s.pingStore)
	if rd, ok := s.runner.(Readier); ok {
		check(rd.ReadyName(), rd.Ready)
	}
	status, word := http.StatusOK, "ready"
	if !ready {
		status, word = http.StatusServiceUnavailable, "not ready"
	}
	writeJSON(w, status, map[string]any{"status": word, "checks": checks})
}

// pingStore checks that the store answers.
func (s *Server) pingStore(ctx context.Context) error {
	if p, ok := s.store.(pinger); ok {
		return p.Ping(ctx)
	}
	_, err := s.store.List(ctx, session.ListOptions{Limit: 1})
	return err
}
