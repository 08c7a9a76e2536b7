//go:build unix

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a serve or worker process this command started.
type proc struct {
	cmd  *exec.Cmd
	url  string // a serve's http://host:port
	done chan struct{}

	mu   sync.Mutex
	logs bytes.Buffer
}

// command is the harness9 command args with the data directory's env.
func command(f files, bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = f.env
	cmd.Dir = f.root
	return cmd
}

// startServe starts a serve on a free port and waits for it to listen.
func startServe(f files, o opts) (*proc, error) {
	args := []string{"serve", "--listen", "127.0.0.1:0", "-m", "scripted/" + f.model}
	if o.engine == "temporal" {
		args = append(args, "--engine", "temporal", "--temporal-address", o.temporal)
	}
	p, err := start(command(f, o.bin, args...), "listening on ")
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return p, nil
}

// startWorker starts a harness9 worker and waits for it to poll.
func startWorker(f files, o opts) (*proc, error) {
	p, err := start(command(f, o.bin, "worker", "--temporal-address", o.temporal), "")
	if err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	return p, nil
}

// start runs cmd, keeping its stderr, and waits for a line containing
// ready (a serve's address follows it); "" waits for nothing.
func start(cmd *exec.Cmd, ready string) (*proc, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.logs.WriteString(line + "\n")
			p.mu.Unlock()
			if _, rest, ok := strings.Cut(line, ready); ok && ready != "" {
				select {
				case addr <- strings.Fields(rest)[0]:
				default:
				}
			}
		}
		_ = cmd.Wait()
	}()
	if ready == "" {
		return p, nil
	}
	select {
	case p.url = <-addr:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("exited: %s", p.output())
	case <-time.After(time.Minute):
		p.stop()
		return nil, fmt.Errorf("not listening after a minute: %s", p.output())
	}
}

func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// stop sends SIGTERM, and SIGKILL to the group after 30 s.
func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}
