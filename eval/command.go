package eval

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/harness9/harness9/sandbox"
)

// maxOutput is how much of a command's output a record keeps: the end,
// where test runners put their verdict.
const maxOutput = 16 << 10

// commands runs a task's setup and check commands in the workdir, in the
// kernel sandbox (workspace-write: the workdir and a private TMPDIR are
// writable, the network is as the sandbox was configured).
type commands struct {
	sb         *sandbox.Sandbox // nil: the agent was assembled without a sandbox
	dir        string
	env        []string
	unconfined bool
}

type cmdResult struct {
	exit     int
	output   string
	timedOut bool
	err      error // the command could not be run
}

func (r cmdResult) describe() string {
	switch {
	case r.err != nil:
		return r.err.Error()
	case r.timedOut:
		return "timed out: " + r.output
	}
	return fmt.Sprintf("exit status %d: %s", r.exit, r.output)
}

func (c *commands) run(ctx context.Context, command string, timeout time.Duration, env map[string]string) cmdResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := &tail{max: maxOutput}
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = c.dir
	cmd.Env = append([]string(nil), c.env...)
	if c.env == nil {
		cmd.Env = sandbox.BaseEnv(nil)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	cleanup, err := c.start(cmd, env)
	if err != nil {
		return cmdResult{err: err}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	timedOut := false
	select {
	case werr = <-done:
	case <-ctx.Done():
		timedOut = true
		_ = cmd.Process.Kill()
		werr = <-done
	}
	cleanup() // kills what the command left running
	res := cmdResult{output: out.String(), timedOut: timedOut}
	var exitErr *exec.ExitError
	switch {
	case timedOut:
	case werr == nil, errors.Is(werr, exec.ErrWaitDelay):
	case errors.As(werr, &exitErr):
		res.exit = exitErr.ExitCode()
		if res.exit < 0 {
			res.exit = 128 + int(syscall.SIGKILL)
		}
	default:
		res.err = werr
	}
	return res
}

// start starts cmd confined when a sandbox was configured; unconfined
// only where the kernel cannot confine it and the runner allows it.
func (c *commands) start(cmd *exec.Cmd, env map[string]string) (func(), error) {
	if c.sb == nil {
		for k, v := range env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.SysProcAttr = newSession()
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return func() { killGroup(cmd) }, nil
	}
	p, err := c.sb.Start(cmd, sandbox.WorkspaceWrite, sandbox.WithEnv(env))
	if errors.Is(err, sandbox.ErrUnavailable) && c.unconfined {
		p, err = c.sb.StartUnconfined(cmd, sandbox.WorkspaceWrite, sandbox.WithEnv(env))
	}
	if err != nil {
		return nil, fmt.Errorf("starting %q in the sandbox: %w", cmd.Args[len(cmd.Args)-1], err)
	}
	return func() { p.Cleanup() }, nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu   sync.Mutex
	max  int
	buf  []byte
	lost int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.lost += over
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.ToValidUTF8(string(t.buf), "\uFFFD")
	if t.lost > 0 {
		return fmt.Sprintf("[%d bytes cut]\n%s", t.lost, s)
	}
	return s
}
