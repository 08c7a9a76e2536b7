package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/service"
)

// shutdownGrace bounds how long serve waits for cancelled runs to save
// their state and release their sessions.
const shutdownGrace = 30 * time.Second

func newServeCmd(e *env, g *globals) *cobra.Command {
	var listen, engine string
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API, its event streams and the plan-review web page",
		Long: "Serve an HTTP API over the engine: create sessions in the directories of [serve] roots,\n" +
			"send prompts, stream events (Server-Sent Events), review plans, answer permission asks.\n" +
			"The web page at / shows sessions, plans and todos with buttons to approve.\n" +
			"Callers need a bearer token: create one with `harness9 serve token add NAME --root DIR`.\n" +
			"SIGINT/SIGTERM cancel running turns (state saved, sessions resumable) and exit 0.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case !cmd.Flags().Changed("idle-timeout"):
				idle = -1 // config [serve] idle_timeout, else the default
			case idle < 0:
				return usageErr("--idle-timeout must not be negative (0 keeps sessions open)")
			}
			return runServe(cmd.Context(), e, g, listen, cmd.Flags().Changed("listen"), engine, idle)
		},
	}
	cmd.Flags().StringVar(&listen, "listen", service.DefaultListen, "address to listen on (config [serve] listen)")
	cmd.Flags().DurationVar(&idle, "idle-timeout", service.DefaultIdleTimeout, "release a session (its engine, lock and event ring) after it had "+
		"no run and no event stream for this long; 0 keeps sessions open (config [serve] idle_timeout)")
	cmd.Flags().StringVar(&engine, "engine", "", "where sessions run: local (in this process, the default; config engine) or temporal "+
		"(durable workflows carried out by `harness9 worker` processes; this process runs no tools)")
	token := requireSubcommand(&cobra.Command{Use: "token", Short: "Manage the bearer tokens serve accepts"})
	token.AddCommand(newTokenAddCmd(e, g))
	cmd.AddCommand(token)
	return cmd
}

func newTokenAddCmd(e *env, g *globals) *cobra.Command {
	var roots []string
	cmd := &cobra.Command{
		Use:   "add NAME --root DIR [--root DIR...]",
		Short: "Create a token: prints it once, stores only its SHA-256 in config.toml",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if len(roots) == 0 {
				return usageErr("give the token the directories it may use: --root DIR (repeatable)")
			}
			c, err := g.load(e, config.Flags{})
			if err != nil {
				return err
			}
			var abs []string
			for _, r := range roots {
				a, err := filepath.Abs(r)
				if err != nil {
					return usageErr("--root %s: %v", r, err)
				}
				abs = append(abs, a)
				if !insideAny(a, c.Serve.Roots) {
					fmt.Fprintf(e.stderr, "harness9: warning: %s is not inside [serve] roots of %s; add it there, or serve refuses to start\n", a, c.File)
				}
			}
			tok, err := service.NewToken()
			if err != nil {
				return withCode(ExitError, err)
			}
			if err := c.AddServeToken(config.ServeToken{Name: args[0], SHA256: service.HashToken(tok), Roots: abs}); err != nil {
				return usageErr("%v", err)
			}
			fmt.Fprintf(e.stderr, "Added token %q to %s. It is shown once; keep it somewhere safe:\n", args[0], c.File)
			fmt.Fprintln(e.stdout, tok)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&roots, "root", nil, "a directory the token's sessions may use (repeatable)")
	return cmd
}

// insideAny reports whether dir is one of roots or lies beneath one.
func insideAny(dir string, roots []string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r, dir)
		if err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func runServe(ctx context.Context, e *env, g *globals, listen string, listenSet bool, engine string, idle time.Duration) error {
	c, err := g.load(e, config.Flags{Engine: engine})
	if err != nil {
		return err
	}
	if !listenSet && c.Serve.Listen != "" {
		listen = c.Serve.Listen
	}
	switch {
	case idle < 0 && c.Serve.IdleTimeout != "":
		idle = c.Serve.Idle
	case idle < 0:
		idle = service.DefaultIdleTimeout
	}
	if len(c.Serve.Roots) == 0 {
		return usageErr("serve needs the directories sessions may use: add [serve] roots = [\"/path\"] to %s", c.File)
	}
	store, err := openStore(ctx, c)
	if err != nil {
		return err
	}
	defer store.Close()
	logger := e.log()
	tel, err := telemetry(ctx, e, c, "")
	if err != nil {
		return err
	}
	var runner service.Runner
	var engineNote string
	if c.Engine == config.EngineTemporal {
		// The workers run the model and the tools: this process needs
		// no provider key.
		r, note, closeRunner, err := durableServeRunner(e, c, store)
		if err != nil {
			return err
		}
		defer closeRunner()
		runner, engineNote = r, note
	} else {
		// Check the model's configuration now, not at the first request.
		if _, _, err := newProvider(c, e.getenv); err != nil {
			return err
		}
		runner = service.NewEngineRunner(store, localFactory(e, g))
	}
	var tokens []service.Token
	for _, t := range c.Serve.Tokens {
		tokens = append(tokens, service.Token{Name: t.Name, SHA256: t.SHA256, Roots: t.Roots})
	}
	opts := []service.Option{service.WithTokens(tokens...), service.WithLogger(logger), service.WithIdleTimeout(idle)}
	stopMetrics := func() {}
	if tel != nil {
		opts = append(opts, service.WithTracing(tel.Tracer, tel.Propagator))
		switch {
		case tel.Metrics != nil && tel.PrometheusListen != "":
			if stopMetrics, err = serveMetrics(e, tel.PrometheusListen, tel.Metrics); err != nil {
				return err
			}
		case tel.Metrics != nil:
			opts = append(opts, service.WithMetrics(tel.Metrics))
		}
	}
	defer stopMetrics()
	srv, err := service.New(runner, store, c.Serve.Roots, opts...)
	if err != nil {
		return usageErr("%v", err)
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return usageErr("cannot listen on %s: %v; choose another address with --listen", listen, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(e.stderr, "harness9 serve: listening on http://%s (API /api, web page /, OpenAPI /openapi.json)\n", ln.Addr())
	if engineNote != "" {
		fmt.Fprintln(e.stderr, engineNote)
	}

	select {
	case err := <-served:
		return withCode(ExitError, fmt.Errorf("serve: %w", err))
	case <-ctx.Done():
	}
	fmt.Fprintln(e.stderr, "harness9 serve: shutting down; running turns are cancelled and saved")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	httpDone := make(chan error, 1)
	// Stop accepting at once; event streams end when srv.Shutdown closes
	// them, which lets hs.Shutdown finish.
	go func() { httpDone <- hs.Shutdown(sctx) }()
	errRuns := srv.Shutdown(sctx)
	errHTTP := <-httpDone
	if err := errors.Join(errRuns, errHTTP); err != nil {
		return withCode(ExitError, fmt.Errorf("serve: shutdown: %w", err))
	}
	fmt.Fprintln(e.stderr, "harness9 serve: stopped; every session can be resumed")
	return nil
}

// serveMetrics serves the Prometheus page alone on listen, without the
// API's tokens (the address is the protection: keep it private).
func serveMetrics(e *env, listen string, h http.Handler) (func(), error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, usageErr("cannot listen on %s for /metrics: %v; change [telemetry] prometheus_listen or OTEL_EXPORTER_PROMETHEUS_HOST/PORT", listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	fmt.Fprintf(e.stderr, "harness9 serve: Prometheus metrics on http://%s/metrics\n", ln.Addr())
	return func() { _ = hs.Close() }, nil
}

// localFactory builds the engines of `serve --engine local`: each session
// gets its workdir's own configuration (the project's .harness9/config.toml
// rules, its tools, sandbox and lock).
func localFactory(e *env, g *globals) service.EngineFactory {
	return func(ctx context.Context, workdir, id string) (*agent.Engine, io.Closer, error) {
		sg := *g
		sg.workdir = workdir // g.load gives the global -C flag precedence
		wc, err := sg.load(e, config.Flags{})
		if err != nil {
			return nil, nil, err
		}
		p, r, err := newProvider(wc, e.getenv)
		if err != nil {
			return nil, nil, err
		}
		rt, err := newRuntime(ctx, e, wc, p, r)
		if err != nil {
			return nil, nil, err
		}
		eng, err := rt.newEngine(engineOptions{resumeID: id})
		if err != nil {
			rt.Close()
			return nil, nil, err
		}
		return eng, closerFunc(rt.Close), nil
	}
}

// closerFunc adapts a func to io.Closer.
type closerFunc func()

func (f closerFunc) Close() error { f(); return nil }
