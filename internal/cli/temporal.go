//go:build temporal

// This file and run_durable.go are the CLI's wiring of the Temporal engine
// (packages durable and service/durablerunner): `run --engine
// temporal`, `worker`, `sessions approve|refine|cancel` and `serve --engine
// temporal`. They build only with `-tags temporal`: the
// Temporal SDK, gRPC and their protobuf descriptors cost every process
// start, `harness9 version` included, several milliseconds of package
// initialisation and the binary tens of megabytes, for a feature few
// installations use. temporal_off.go is the default build's side: the
// same commands, refused with the build command that enables them. Wiring
// another command to the Temporal engine means a function here and its
// refusing twin there.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
	tlog "go.temporal.io/sdk/log"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/service"
	"github.com/harness9/harness9/service/durablerunner"
	"github.com/harness9/harness9/session"
)

// dialTemporal connects to the configured Temporal server. The SDK's log
// goes to the command's log: stdout stays the event stream's. With
// telemetry on, the SDK's tracing interceptor carries the trace from the
// client into workflows and activities on any worker (a worker built on
// this client gets it too).
func dialTemporal(ctx context.Context, e *env, c *config.Config) (client.Client, error) {
	tel, err := telemetry(ctx, e, c, "")
	if err != nil {
		return nil, err
	}
	opts := client.Options{
		HostPort:  c.Temporal.Address,
		Namespace: c.Temporal.Namespace,
		Logger:    tlog.NewStructuredLogger(e.log()),
	}
	if tel != nil {
		// Queries are left out: following a session polls one every
		// few hundred milliseconds.
		ti, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{
			Tracer: tel.Tracer.Tracer("go.temporal.io/sdk"), TextMapPropagator: tel.Propagator, DisableQueryTracing: true})
		if err != nil {
			return nil, withCode(ExitError, fmt.Errorf("telemetry: the Temporal tracing interceptor: %w", err))
		}
		opts.Interceptors = []interceptor.ClientInterceptor{ti}
	}
	tc, err := client.Dial(opts)
	if err != nil {
		return nil, withCode(ExitError, fmt.Errorf("cannot reach the Temporal server at %s (namespace %s): %w; start one "+
			"(temporal server start-dev) or point --temporal-address / config [temporal] address at it",
			c.Temporal.Address, c.Temporal.Namespace, err))
	}
	return tc, nil
}

// durableServeRunner is serve's Runner for --engine temporal: sessions run
// as workflows on this host's task queue. It returns the line serve prints
// once it listens, and what to call when serve ends.
func durableServeRunner(e *env, c *config.Config, store session.Store) (service.Runner, string, func(), error) {
	tc, err := dialTemporal(context.Background(), e, c)
	if err != nil {
		return nil, "", nil, err
	}
	r := durablerunner.New(tc, store, taskQueue(c), durablerunner.WithModel(c.Model),
		durablerunner.WithLimits(durablerunner.Limits{MaxTurns: c.MaxTurns, StallThreshold: c.StallThreshold,
			MaxRounds: c.MaxExecRounds, HeartbeatTimeout: c.Temporal.HeartbeatTimeout, ContextWindow: c.ContextWindow,
			AskTimeout: c.Temporal.AskTimeout}))
	note := fmt.Sprintf("harness9 serve: sessions run as durable workflows on task queue %s (Temporal %s); start `harness9 worker` there",
		taskQueue(c), c.Temporal.Address)
	return r, note, tc.Close, nil
}

// temporalBuiltIn reports whether this binary includes the Temporal engine.
const temporalBuiltIn = true

// taskQueue is the queue sessions started here run on: the configured one,
// or this host's.
func taskQueue(c *config.Config) string {
	if c.Temporal.TaskQueue != "" {
		return c.Temporal.TaskQueue
	}
	host, _ := os.Hostname()
	return durable.HostTaskQueue(host)
}

func newWorkerCmd(e *env, g *globals) *cobra.Command {
	var queue string
	var drain time.Duration
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run the steps of durable (--engine temporal) sessions whose workspace is on this host",
		Long: "Polls a Temporal task queue and runs the steps of the sessions started on it: model calls,\n" +
			"tool batches, approvals. Run one or more per host; a session's steps run on the queue of\n" +
			"the host that holds its workspace (default harness9-<hostname>). On Ctrl+C or TERM it stops\n" +
			"taking work, lets the running steps finish for up to --drain-timeout, then cancels the rest\n" +
			"(they are retried on another worker) and exits 0.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("drain-timeout") {
				drain = -1
			} else if drain < 0 {
				return usageErr("--drain-timeout must not be negative (0 cancels running steps at once)")
			}
			return runWorker(cmd.Context(), e, g, queue, drain)
		},
	}
	cmd.Flags().StringVar(&queue, "task-queue", "", "task queue to poll (config [temporal] task_queue; default harness9-<hostname>)")
	cmd.Flags().DurationVar(&drain, "drain-timeout", durable.DefaultDrain, "on TERM, how long running steps may finish before they are cancelled "+
		"and retried elsewhere (config [temporal] drain_timeout)")
	return cmd
}

func runWorker(ctx context.Context, e *env, g *globals, queue string, drain time.Duration) error {
	c, err := g.load(e, config.Flags{})
	if err != nil {
		return err
	}
	if queue != "" {
		c.Temporal.TaskQueue = queue
	}
	tc, err := dialTemporal(ctx, e, c)
	if err != nil {
		return err
	}
	defer tc.Close()
	store, err := openStore(ctx, c)
	if err != nil {
		return err
	}
	defer store.Close()
	eng := newWorkerEngines(e, g, c, store)
	defer eng.close()
	sweepCtx, stopSweep := context.WithCancel(context.Background())
	defer stopSweep()
	go eng.sweep(sweepCtx)
	switch {
	case drain < 0 && c.Temporal.DrainSet:
		drain = c.Temporal.DrainTimeout
	case drain < 0:
		drain = durable.DefaultDrain
	}
	w := durable.NewWorker(tc, taskQueue(c), durable.NewActivities(eng), durable.WithDrain(drain))
	if err := w.Start(); err != nil {
		return withCode(ExitError, fmt.Errorf("the worker could not start: %w", err))
	}
	fmt.Fprintf(e.stderr, "harness9 worker: polling task queue %s on %s (namespace %s)\n", taskQueue(c), c.Temporal.Address, c.Temporal.Namespace)
	<-ctx.Done()
	fmt.Fprintf(e.stderr, "harness9 worker: stopping; running steps have %v to finish\n", drain)
	w.Stop()
	fmt.Fprintln(e.stderr, "harness9 worker: stopped")
	return nil
}

// workerEngines opens engines for the steps a worker runs. A session is
// wired like `run` wires it in its own workdir and with its own model:
// the project's config, AGENTS.md, skills, sandbox, MCP servers. A wiring
// is shared by the steps that run in its workdir with its model and kept
// for a while after the last of them (idleCache: at most
// workerIdleWirings, closed after workerWiringTTL), so a busy workdir
// starts its MCP servers once and a worker that ran a thousand sessions
// in a thousand workdirs does not keep them all. No session lock is
// taken: the workflow runs one step of a session at a time, so it is the
// session's one writer. Every step and every wiring uses the worker's one
// store (a project cannot choose another), so a worker holds one pool of
// database connections however many sessions it has run: a store per step
// cost a connection and a schema check each, and one per wiring a pool
// per workdir, which exhausted PostgreSQL's max_connections after a few
// hundred sessions.
type workerEngines struct {
	e     *env
	g     *globals
	base  *config.Config
	store session.Store

	wirings *idleCache[*wiring]
}

const (
	// workerIdleWirings is how many wirings nobody uses a worker keeps.
	workerIdleWirings = 8
	// workerWiringTTL is how long a worker keeps a wiring nobody uses.
	workerWiringTTL = 5 * time.Minute
)

func newWorkerEngines(e *env, g *globals, c *config.Config, store session.Store) *workerEngines {
	return &workerEngines{e: e, g: g, base: c, store: store, wirings: newIdleCache[*wiring](workerIdleWirings, workerWiringTTL)}
}

// Engine implements durable.Engines.
func (w *workerEngines) Engine(ctx context.Context, id string, s durable.Settings) (*agent.Engine, func(), error) {
	sess, err := w.store.Get(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	rt, release, err := w.wirings.acquire(sess.Workdir+"\x00"+sess.Model, func() (*wiring, error) { return w.wire(ctx, sess) })
	if err != nil {
		return nil, nil, err
	}
	eng, err := rt.newEngine(engineOptions{resumeID: sess.ID, noClaim: true, contextWindow: s.ContextWindow})
	if err != nil {
		release()
		return nil, nil, err
	}
	return eng, release, nil
}

// wire builds the wiring of a session's workdir and model.
func (w *workerEngines) wire(ctx context.Context, sess session.Session) (*wiring, error) {
	g := *w.g
	g.workdir, g.model = sess.Workdir, sess.Model
	c, err := g.load(w.e, config.Flags{})
	if err != nil {
		return nil, fmt.Errorf("the workspace of session %s is not usable on this worker (is it pinned to another host?): %w", sess.ID, err)
	}
	p, r, err := newProvider(c, w.e.getenv)
	if err != nil {
		return nil, err
	}
	return newRuntime(ctx, w.e, c, p, r, withSharedStore(w.store))
}

// sweep closes the wirings idle for longer than workerWiringTTL until ctx
// ends.
func (w *workerEngines) sweep(ctx context.Context) {
	t := time.NewTicker(workerWiringTTL / 5)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.wirings.sweep()
		}
	}
}

func (w *workerEngines) close() { w.wirings.close() }

// errBusyWorkflow explains a session whose workflow is already running.
func errBusyWorkflow(id string) error {
	return withCode(ExitError, fmt.Errorf("session %s is busy: its durable workflow is running; follow or answer it with "+
		"`harness9 sessions approve|refine|cancel %s`", id, id))
}

// isNoWorkflow reports a signal sent to a session without a running workflow.
func isNoWorkflow(err error) bool { return errors.Is(err, durable.ErrNoWorkflow) }
