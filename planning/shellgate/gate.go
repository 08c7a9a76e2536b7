// Package shellgate is the first lock on the bash commands a model runs in
// Plan Mode: a parse-only check that refuses, early and with a message the
// model can act on, a command that would obviously write, run other
// programs, print the environment or read outside the workspace.
//
// It is not the boundary. Plan-Mode bash runs inside the kernel sandbox
// (package sandbox), which is what keeps it read-only, offline and inside
// the workdir; no security property may rest on this gate alone. The gate
// parses the command with mvdan.cc/sh and never runs anything. Where that
// parser and bash could disagree about what a command line means (a CR, a
// backslash ending a comment line, a here-document inside $(...)), the
// command is refused rather than modelled.
package shellgate

import (
	"fmt"

	"github.com/harness9/harness9/tool"
)

// CommandError is why Check refused a command: the offending part of the
// command line and the reason, worded for the model.
type CommandError struct {
	Command string // the simple command, redirect or construct that was refused
	Reason  string
	// Path is set when the command was refused because of what it would
	// read (a path outside the workspace, or file names the gate cannot
	// see) — only with WithWorkspace.
	Path string
}

func (e *CommandError) Error() string {
	if e.Command == "" {
		return e.Reason
	}
	return fmt.Sprintf("`%s`: %s", e.Command, e.Reason)
}

// Option configures Check.
type Option func(*config)

type config struct {
	ws         *tool.Workspace
	unconfined bool
}

// WithWorkspace also checks what the command reads: every path it names
// (file operands, option values naming files, input redirections, find's
// starting points, cd targets, glob matches) must resolve inside ws and
// outside its deny list, and file names produced at run time ($(...)
// operands, xargs input) must come from a command that lists the
// workspace's files. A nil ws checks nothing more.
func WithWorkspace(ws *tool.Workspace) Option {
	return func(c *config) { c.ws = ws }
}

// WithoutKernelSandbox says the command will run without the kernel
// sandbox (plan_bash = "gated" on a system without Landlock), so the gate
// is all that stands between it and the machine. It then also refuses what
// it otherwise leaves to the kernel: ps (every process's command line),
// file names only known at run time (xargs, $(find ...) operands, find
// -exec), which may lead through a symbolic link out of the workspace, and,
// with WithWorkspace, a recursive read (grep -r, rg, find, ls -R, du, tree,
// diff -r, git grep and ls-files) of a directory that holds a denied
// location such as ~/.ssh when the workspace is the home directory.
func WithoutKernelSandbox() Option {
	return func(c *config) { c.unconfined = true }
}

// Check reports whether a bash command line may run in Plan Mode. It
// returns nil or a *CommandError.
//
// Every simple command — in pipelines, lists, subshells, blocks, loops and
// command or process substitutions, and the commands xargs and find -exec
// run — must be a literal name on a read-only allowlist, with arguments
// that cannot turn it into a writer or a launcher of other programs
// (find -delete, sed -i, git checkout ...). Output redirection is allowed
// only to /dev/null and between descriptors. What would print the
// environment (env, printenv, set, $SECRET, jq's $ENV, awk's ENVIRON) is
// refused, as are background jobs, assignments, functions, arithmetic and
// anything else the gate cannot prove harmless.
func Check(command string, opts ...Option) error {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	file, err := parse(command)
	if err != nil {
		return err
	}
	if err := checkReadOnly(file); err != nil {
		return err
	}
	if cfg.unconfined {
		if err := checkUnconfined(file); err != nil {
			return err
		}
	}
	if cfg.ws != nil {
		return checkPaths(file, cfg.ws, cfg.unconfined)
	}
	return nil
}
