package durable

import (
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// HostTaskQueue is the default task queue of a worker on host: sessions
// started against it run their steps on that host, where their workspace
// is.
func HostTaskQueue(host string) string {
	host = strings.ToLower(strings.TrimSpace(host))
	if host == "" {
		host = "localhost"
	}
	return "harness9-" + host
}

// DefaultDrain is how long a stopping worker lets the steps it is running
// finish (WithDrain).
const DefaultDrain = 20 * time.Second

// WorkerOption configures NewWorker.
type WorkerOption func(*worker.Options)

// WithDrain sets how long Stop lets running steps finish before it cancels
// them (default DefaultDrain). A step cancelled so is retried on another
// worker of the queue; one that finished is not run again.
func WithDrain(d time.Duration) WorkerOption {
	return func(o *worker.Options) { o.WorkerStopTimeout = d }
}

// WithPollers makes the worker poll with at most n requests at a time for
// workflow tasks and n for steps, in the SDK's fixed "simple maximum" way
// (n ≥ 2), instead of the default autoscaling pollers. It is there to
// compare: the fixed pollers serve a workflow task queue and the worker's
// sticky queue (the tasks of workflows it holds in its cache) from one
// pool that always prefers the sticky queue while it has a backlog, so
// under a steady load of running sessions — and followers' queries, which
// arrive on the sticky queue too — the first task of a new session waits
// until that backlog is gone (64 s of 72 at 50 sessions at once on one
// worker, see BenchmarkSessionsThroughput).
func WithPollers(n int) WorkerOption {
	return func(o *worker.Options) {
		o.WorkflowTaskPollerBehavior, o.ActivityTaskPollerBehavior = nil, nil
		o.MaxConcurrentWorkflowTaskPollers, o.MaxConcurrentActivityTaskPollers = max(n, 2), max(n, 2)
	}
}

// NewWorker returns a worker polling queue, with the session workflow and
// acts registered. Start it with Run or Start; Stop stops taking work and
// waits for the running steps up to the drain time. Its pollers scale
// with the load (the SDK's autoscaling behaviour), with pollers of their
// own for the task queue and for the worker's sticky queue, so new
// sessions start while the running ones keep it busy (WithPollers).
func NewWorker(c client.Client, queue string, acts *Activities, opts ...WorkerOption) worker.Worker {
	o := worker.Options{WorkerStopTimeout: DefaultDrain,
		WorkflowTaskPollerBehavior: worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{}),
		ActivityTaskPollerBehavior: worker.NewPollerBehaviorAutoscaling(worker.PollerBehaviorAutoscalingOptions{})}
	for _, opt := range opts {
		opt(&o)
	}
	w := worker.New(c, queue, o)
	Register(w, acts)
	return w
}

// Register registers the session workflow and acts with r (a worker, or a
// test environment).
func Register(r interface {
	RegisterWorkflowWithOptions(any, workflow.RegisterOptions)
	RegisterActivity(any)
}, acts *Activities) {
	r.RegisterWorkflowWithOptions(SessionWorkflow, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivity(acts)
}
