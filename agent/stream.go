package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime/debug"
)

// ErrBusy is returned (in Done.Err) when a run is started while another one
// is still in progress on the same engine.
var ErrBusy = errors.New("agent: another run is in progress on this engine")

// stream is the consumer's side of one public call (Run, Approve, Continue,
// Compact). Events are yielded synchronously from the loop's goroutine, so a
// consumer that stops reading (breaks out of its range loop) stops the run:
// emit then cancels the run's context and every later emit is dropped.
type stream struct {
	yield   func(Event) bool
	cancel  context.CancelFunc
	stopped bool
	obs     RunObserver // nil without an Observer (observe.go)
}

// emit hands ev to the consumer and reports whether it still listens.
func (s *stream) emit(ev Event) bool {
	if s.stopped {
		return false
	}
	if s.obs != nil {
		s.obs.Event(ev)
	}
	if !s.yield(ev) {
		s.stopped = true
		s.cancel()
		return false
	}
	return true
}

// body is the work of one public call. It returns the final status; err
// explains RunError and RunCancelled.
type body func(ctx context.Context, s *stream) (RunStatus, error)

// serve turns a body into an event sequence that always ends with Done,
// holding the engine's single-run lock meanwhile.
func (e *Engine) serve(ctx context.Context, fn body) iter.Seq[Event] {
	return func(yield func(Event) bool) {
		if !e.busy.CompareAndSwap(false, true) {
			if yield(Error{Message: ErrBusy.Error()}) {
				yield(Done{Status: RunError, Err: ErrBusy})
			}
			return
		}
		defer e.busy.Store(false)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s := &stream{yield: yield, cancel: cancel}
		ctx, end := e.observe(ctx, s)
		status, err := e.guard(ctx, s, fn)
		if status == RunError && err != nil {
			s.emit(Error{Message: err.Error()})
		}
		s.emit(Done{Status: status, Err: err})
		if end != nil {
			end(status, err)
		}
	}
}

// guard runs fn and turns a panic into RunError, so a bug anywhere in
// the engine ends the stream properly instead of crashing the program.
func (e *Engine) guard(ctx context.Context, s *stream, fn body) (status RunStatus, err error) {
	defer func() {
		if p := recover(); p != nil {
			e.log.ErrorContext(ctx, "agent: panic in the run loop", "panic", p, "stack", string(debug.Stack()))
			status, err = RunError, fmt.Errorf("agent: internal error: %v", p)
		}
	}()
	return fn(ctx, s)
}
