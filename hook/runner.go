package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/harness9/harness9/sandbox"
)

// DefaultMaxOutput caps, in bytes, what is kept of a hook's stdout and of
// its stderr.
const DefaultMaxOutput = 16 * 1024

// waitDelay bounds how long a hook's pipes are drained after it exits
// (a background process may hold them open).
const waitDelay = 2 * time.Second

// Runner runs the hooks of one workdir. It is immutable after New and safe
// for concurrent use.
type Runner struct {
	workdir    string
	hooks      []compiled
	sb         *sandbox.Sandbox
	unconfined bool
	env        []string
	hide       map[string]bool
	keep       map[string]bool
	shell      string
	maxOutput  int
}

// Option configures New.
type Option func(*Runner)

// WithSandbox confines every hook with sb, under the policy the run's
// context carries (sandbox.ContextWithPolicy; WorkspaceWrite when it
// carries none).
func WithSandbox(sb *sandbox.Sandbox) Option { return func(r *Runner) { r.sb = sb } }

// WithUnconfined lets hooks run without the kernel sandbox when none is
// given or the kernel cannot enforce it. Without it such hooks are not run
// and each is reported as a failure that says why.
func WithUnconfined(allow bool) Option { return func(r *Runner) { r.unconfined = allow } }

// WithEnv is the environment hooks start from (default: only PATH, see
// sandbox.BaseEnv; harness9's CLI passes the process environment),
// before secrets are scrubbed (sandbox.ScrubEnv).
func WithEnv(env []string) Option { return func(r *Runner) { r.env = env } }

// WithHiddenEnv drops more variables from hooks' environment, such as the
// providers' key variables.
func WithHiddenEnv(names ...string) Option {
	return func(r *Runner) {
		for _, n := range names {
			if n != "" {
				r.hide[n] = true
			}
		}
	}
}

// WithKeepEnv keeps variables that look secret (sandbox.IsSecretName),
// like [env] keep does for commands. A name WithHiddenEnv drops stays
// dropped: hooks never see the providers' keys.
func WithKeepEnv(names ...string) Option {
	return func(r *Runner) {
		for _, n := range names {
			if n != "" {
				r.keep[n] = true
			}
		}
	}
}

// WithShell runs hooks with this shell's -c (default "bash").
func WithShell(path string) Option { return func(r *Runner) { r.shell = path } }

// WithMaxOutput caps what is kept of each output stream (default
// DefaultMaxOutput).
func WithMaxOutput(n int) Option { return func(r *Runner) { r.maxOutput = n } }

// New returns a runner of hooks in workdir. A hook with an unknown event,
// no command or a malformed matcher is an error naming its source.
func New(workdir string, hooks []Hook, opts ...Option) (*Runner, error) {
	r := &Runner{workdir: workdir, hide: map[string]bool{}, keep: map[string]bool{}, shell: "bash", maxOutput: DefaultMaxOutput}
	for _, o := range opts {
		o(r)
	}
	r.env = sandbox.BaseEnv(r.env)
	for n := range r.hide {
		delete(r.keep, n)
	}
	if r.maxOutput <= 0 {
		r.maxOutput = DefaultMaxOutput
	}
	for _, h := range hooks {
		c, err := compile(h, workdir)
		if err != nil {
			return nil, fmt.Errorf("hook: %w", err)
		}
		r.hooks = append(r.hooks, c)
	}
	return r, nil
}

// Hooks returns the configured hooks.
func (r *Runner) Hooks() []Hook {
	out := make([]Hook, len(r.hooks))
	for i, c := range r.hooks {
		out[i] = c.Hook
	}
	return out
}

// Has reports whether any hook is attached to event n, so a caller can
// skip building an event nobody reads.
func (r *Runner) Has(n Name) bool {
	for _, c := range r.hooks {
		if c.Event == n {
			return true
		}
	}
	return false
}

// Outcome is what the hooks of one event said.
type Outcome struct {
	// Blocked is true when a hook exited with status 2, or exited 0 with a
	// JSON decision to block on stdout (Decision); the hooks after it did
	// not run.
	Blocked bool
	// Reason is the blocking hook's stderr, or its JSON decision's reason
	// (or a sentence saying it gave none).
	Reason string
	// By is the blocking hook.
	By Hook
	// Failures are the hooks that failed: another exit status, a timeout,
	// or no way to run them.
	Failures []Failure
	// Ran counts the hooks that were started.
	Ran int
}

// Failure is a hook that did not succeed or block.
type Failure struct {
	Hook Hook
	// Message says what went wrong, with the end of its stderr.
	Message string
}

// Run runs the hooks attached to ev, in the order they were configured,
// until one blocks. A nil Runner runs nothing.
func (r *Runner) Run(ctx context.Context, ev Event) Outcome {
	var out Outcome
	if r == nil {
		return out
	}
	var payload []byte
	for _, c := range r.hooks {
		if !c.matches(ev) {
			continue
		}
		if payload == nil {
			var err error
			if payload, err = json.Marshal(ev); err != nil {
				out.Failures = append(out.Failures, Failure{Hook: c.Hook, Message: "the event could not be encoded: " + err.Error()})
				return out
			}
		}
		res := r.exec(ctx, c.Hook, payload)
		if res.started {
			out.Ran++
		}
		switch {
		case res.problem != "":
			out.Failures = append(out.Failures, Failure{Hook: c.Hook, Message: res.problem})
		case res.code == 0:
			if reason, block := Decision(res.stdout); block {
				out.Blocked, out.By = true, c.Hook
				out.Reason = reason
				if out.Reason == "" {
					out.Reason = fmt.Sprintf("blocked by the %s, which gave no reason", c.Label())
				}
				return out
			}
		case res.code == 2:
			out.Blocked, out.By = true, c.Hook
			out.Reason = strings.TrimSpace(res.stderr)
			if out.Reason == "" {
				out.Reason = fmt.Sprintf("blocked by the %s, which gave no reason", c.Label())
			}
			return out
		default:
			msg := fmt.Sprintf("exit status %d", res.code)
			if s := strings.TrimSpace(res.stderr); s != "" {
				msg += ": " + s
			}
			out.Failures = append(out.Failures, Failure{Hook: c.Hook, Message: msg})
		}
		if ctx.Err() != nil {
			return out
		}
	}
	return out
}

// result is one hook's run.
type result struct {
	started bool
	code    int
	stdout  string
	stderr  string
	problem string // set when there is no meaningful exit status
}

// exec runs one hook with payload on stdin.
func (r *Runner) exec(ctx context.Context, h Hook, payload []byte) result {
	policy := sandbox.PolicyFromContext(ctx, sandbox.WorkspaceWrite)
	confined := r.sb != nil && r.sb.Support().Available
	if !confined && !r.unconfined {
		why := "no kernel sandbox is configured"
		if r.sb != nil {
			why = r.sb.Support().Reason
		}
		return result{problem: "not run: hooks run only inside the kernel sandbox, and " + why +
			" (allow hooks without it with [hooks] unconfined = true in your own config.toml)"}
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	stdout, stderr := newCapped(r.maxOutput), newCapped(r.maxOutput)
	cmd := exec.Command(r.shell, "-c", h.Command)
	cmd.Dir = r.workdir
	env := sandbox.ScrubEnv(r.env, r.keep, r.hide)
	env = dropShellStartup(env)
	cmd.Env = append(env, "HARNESS9_PROJECT_DIR="+r.workdir)
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = waitDelay

	var cleanup func()
	if confined {
		p, err := r.sb.Start(cmd, policy)
		if err != nil {
			return result{problem: "could not start it in the sandbox: " + err.Error()}
		}
		cleanup = func() { p.Cleanup() }
	} else {
		ownSession(cmd)
		if err := cmd.Start(); err != nil {
			return result{problem: "could not start it: " + err.Error()}
		}
		cleanup = func() { killTree(cmd) }
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var err error
	stopped := ""
	select {
	case err = <-done:
	case <-timer.C:
		stopped = fmt.Sprintf("timed out after %s; it and every process it started were killed", timeout)
	case <-ctx.Done():
		stopped = "cancelled with the run; it and every process it started were killed"
	}
	if stopped != "" {
		killTree(cmd)
		err = <-done
	}
	cleanup()
	res := result{started: true, stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case stopped != "":
		res.problem = stopped
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
	case errors.As(err, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.problem = fmt.Sprintf("killed by signal %s", ws.Signal())
		} else {
			res.code = exitErr.ExitCode()
		}
	default:
		res.problem = "waiting for it failed: " + err.Error()
	}
	return res
}

// dropShellStartup removes variables that change how bash -c starts.
func dropShellStartup(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		skip := false
		for _, n := range sandbox.ShellStartupEnv {
			if n == name {
				skip = true
				break
			}
		}
		if !skip {
			out = append(out, kv)
		}
	}
	return out
}

// capped keeps the first n bytes written to it.
type capped struct {
	buf       bytes.Buffer
	n         int
	truncated bool
}

func newCapped(n int) *capped { return &capped{n: n} }

func (c *capped) Write(p []byte) (int, error) {
	room := c.n - c.buf.Len()
	switch {
	case room <= 0:
		c.truncated = c.truncated || len(p) > 0
	case len(p) > room:
		c.buf.Write(p[:room])
		c.truncated = true
	default:
		c.buf.Write(p)
	}
	return len(p), nil
}

func (c *capped) String() string {
	if c.truncated {
		return c.buf.String() + "\n[output truncated]"
	}
	return c.buf.String()
}
