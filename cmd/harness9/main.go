// Command harness9 is the harness9 coding agent: the interactive TUI,
// headless `run`, `sessions`, `demo` and `version`. All logic lives in
// internal/cli; this file only wires the process to it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/harness9/harness9/internal/cli"
	"github.com/harness9/harness9/sandbox"
)

func main() {
	// The provider keys are in this process's environment and memory: no
	// other process of the user (a command the model runs, above all) may
	// read them through /proc.
	_ = sandbox.ProtectSelf()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// A second interrupt or TERM after the first one cancelled the run: stop now.
		<-ctx.Done()
		stop()
		again := make(chan os.Signal, 1)
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		<-again
		os.Exit(cli.ExitInterrupted)
	}()
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
