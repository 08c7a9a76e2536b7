//go:build unix

package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/harness9/harness9/tool"
)

//go:embed bash.md
var bashDescription string

const (
	bashDefaultTimeout = 120 * time.Second
	bashMaxTimeout     = 600 * time.Second
	bashDefaultOutput  = 30 << 10
	bashDefaultGrace   = 2 * time.Second
	// bashPipeWait bounds how long output is still collected after the
	// shell has exited, when a background process keeps the pipe open.
	bashPipeWait = 500 * time.Millisecond
)

// BashInput is the input of bash.
type BashInput struct {
	Command     string `json:"command" jsonschema:"shell command, run with bash -c in the workspace root"`
	TimeoutSecs int    `json:"timeout_secs,omitempty" jsonschema:"time limit in seconds (default 120, max 600)"`
}

// Bash is the bash tool. Each call runs in its own process group, so that a
// timeout or a cancellation kills everything the command started.
type Bash struct {
	spec
	ws        *tool.Workspace
	shell     string
	maxOutput int
	grace     time.Duration
	hideEnv   map[string]bool
}

// DefaultHiddenEnv are the variables bash commands never see: the provider
// keys harness9 itself reads. A command's output lands in the session store
// and goes to the model, and keys must reach neither (DESIGN §4).
var DefaultHiddenEnv = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}

// WithHiddenEnv removes more variables (e.g. configured providers'
// api_key_env) from the environment of every command.
func WithHiddenEnv(names ...string) BashOption {
	return func(b *Bash) {
		for _, n := range names {
			if n != "" {
				b.hideEnv[n] = true
			}
		}
	}
}

// BashOption configures the bash tool.
type BashOption func(*Bash)

// WithMaxOutput caps, in bytes, the output kept from a command; the head and
// the tail are kept. The default is 30 KiB.
func WithMaxOutput(n int) BashOption {
	return func(b *Bash) {
		if n > 0 {
			b.maxOutput = n
		}
	}
}

// WithKillGrace sets how long a timed-out or cancelled command has between
// SIGTERM and SIGKILL. The default is 2s.
func WithKillGrace(d time.Duration) BashOption {
	return func(b *Bash) {
		if d >= 0 {
			b.grace = d
		}
	}
}

// NewBash returns the bash tool. It runs commands with bash, or sh where
// bash is not installed.
func NewBash(ws *tool.Workspace, opts ...BashOption) *Bash {
	b := &Bash{
		spec:      newSpec[BashInput]("bash", bashDescription),
		ws:        ws,
		shell:     "sh",
		maxOutput: bashDefaultOutput,
		grace:     bashDefaultGrace,
		hideEnv:   map[string]bool{},
	}
	for _, n := range DefaultHiddenEnv {
		b.hideEnv[n] = true
	}
	if p, err := exec.LookPath("bash"); err == nil {
		b.shell = p
	}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Timeout implements tool.TimeoutOverride: the command's own limit plus the
// time it takes to kill it, so the Registry does not cut it short.
func (b *Bash) Timeout(input json.RawMessage) time.Duration {
	in, err := tool.Decode[BashInput](input)
	if err != nil {
		return 0
	}
	return b.limit(in.TimeoutSecs) + b.grace + bashPipeWait
}

func (b *Bash) limit(secs int) time.Duration {
	d := time.Duration(secs) * time.Second
	switch {
	case secs <= 0:
		return bashDefaultTimeout
	case d > bashMaxTimeout:
		return bashMaxTimeout
	}
	return d
}

// Execute implements tool.Tool.
func (b *Bash) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return run(ctx, b.name, input, b.exec)
}

func (b *Bash) exec(ctx context.Context, in BashInput) (tool.Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return tool.Errorf("bash: command is required"), nil
	}
	if in.TimeoutSecs < 0 {
		return tool.Errorf("bash: timeout_secs must not be negative"), nil
	}
	limit := b.limit(in.TimeoutSecs)

	out := newHeadTail(b.maxOutput)
	cmd := exec.Command(b.shell, "-c", in.Command)
	cmd.Dir = b.ws.Root()
	cmd.Env = append(b.environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.Stdout, cmd.Stderr = out, out // one pipe: the two streams stay interleaved
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = bashPipeWait
	if err := cmd.Start(); err != nil {
		return tool.Result{}, fmt.Errorf("bash: cannot start %s: %w", b.shell, err)
	}
	pgid := cmd.Process.Pid

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()

	var err error
	var stopped string // why the group was killed, if it was
	select {
	case err = <-done:
	case <-timer.C:
		stopped = fmt.Sprintf("command timed out after %s", limit)
		err = b.kill(pgid, done)
	case <-ctx.Done():
		stopped = "command was cancelled"
		err = b.kill(pgid, done)
	}

	var res strings.Builder
	text := out.String()
	if text == "" {
		text = "(no output)\n"
	} else if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	res.WriteString(text)
	failed := stopped != ""
	if stopped != "" {
		fmt.Fprintf(&res, "%s; it and every process it started were killed\n", stopped)
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		res.WriteString("exit code: 0")
		if err != nil {
			res.WriteString(" (a background process still held the output open; its later output is not shown)")
		}
	case errors.As(err, &exitErr):
		ws := exitErr.Sys().(syscall.WaitStatus)
		if ws.Signaled() {
			fmt.Fprintf(&res, "killed by signal %d (%s)", int(ws.Signal()), ws.Signal())
		} else {
			fmt.Fprintf(&res, "exit code: %d", ws.ExitStatus())
		}
		failed = true
	default:
		return tool.Result{}, fmt.Errorf("bash: waiting for the command: %w", err)
	}
	return tool.Result{Output: res.String(), IsError: failed}, nil
}

// kill ends the process group: SIGTERM first so programs can clean up,
// then SIGKILL for whatever is left after the grace period. It returns the
// shell's wait error.
func (b *Bash) kill(pgid int, done <-chan error) error {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(b.grace)
	var err error
	exited := false
	for time.Now().Before(deadline) {
		if !exited {
			select {
			case err = <-done:
				exited = true
			default:
			}
		}
		// Signal 0 probes the group: ESRCH once every member is gone.
		if exited && syscall.Kill(-pgid, 0) == syscall.ESRCH {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if !exited {
		err = <-done
	}
	return err
}

// environ is the process environment without the hidden variables.
func (b *Bash) environ() []string {
	env := os.Environ()
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !b.hideEnv[name] {
			out = append(out, kv)
		}
	}
	return out
}
