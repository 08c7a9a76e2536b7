package durable

import (
	"strings"

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

// NewWorker returns a worker polling queue, with the session workflow and
// acts registered. Start it with Run or Start.
func NewWorker(c client.Client, queue string, acts *Activities) worker.Worker {
	w := worker.New(c, queue, worker.Options{})
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
