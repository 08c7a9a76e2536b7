// Package demo prepares `harness9 demo`: a throwaway git workdir and a
// scripted model (llm/scripted, no key, no network) that plays a whole
// Plan Mode session — explore read-only, submit a plan, and after the user
// approves it, execute it step by step with todo_write and write_file,
// leaving real files behind. The TUI and `harness9 demo --headless` play the
// same script.
package demo

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// Banner labels every demo session so nobody mistakes it for a model.
const Banner = "scripted demo — no model, no network"

// Prompt is the task the demo pre-fills; the user only presses Enter.
const Prompt = "Create a tiny Go greeter program with a test and a README, as described in NOTES.md."

// Demo is a prepared demo session.
type Demo struct {
	// Workdir is the temporary project the demo works in. It is left on
	// disk afterwards so the user can look at what was written.
	Workdir string
	// Prompt is the task to send in Plan Mode.
	Prompt string
	// Banner is shown above the session.
	Banner string
	// Provider plays the script. It picks its turn from the request's
	// history (which branch of the review the user took, how far execution
	// got), so it needs no state and survives a continuation.
	Provider llm.Provider
	// Model is the label to show and store for the scripted model.
	Model string
}

// Option configures Prepare.
type Option func(*config)

type config struct{ pace, pause time.Duration }

// WithPace waits d before each streamed chunk (a few characters) so a
// person can follow the demo in the TUI. The default (0) plays at full
// speed, for headless use.
func WithPace(d time.Duration) Option { return func(c *config) { c.pace = d } }

// WithPause waits d before each model turn, a beat per step of the demo.
func WithPause(d time.Duration) Option { return func(c *config) { c.pause = d } }

// notes is the project's only file before the demo starts; the scripted
// model reads it in Plan Mode.
const notes = `# Greeter

A tiny command-line greeter in Go.

- ` + "`greeter`" + ` prints "Hello, world!".
- ` + "`greeter Ada`" + ` prints "Hello, Ada!".
- The greeting lives in a function with a unit test.
- A README explains how to build and run it.
`

// Prepare creates the demo workdir under parent (os.TempDir() when empty):
// a git repository (a plain directory if git is not installed) holding
// NOTES.md, and the scripted provider that plays the session.
func Prepare(parent string, opts ...Option) (*Demo, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	dir, err := os.MkdirTemp(parent, "harness9-demo-")
	if err != nil {
		return nil, fmt.Errorf("creating the demo workdir: %w", err)
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, fmt.Errorf("resolving the demo workdir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "NOTES.md"), []byte(notes), 0o644); err != nil {
		return nil, fmt.Errorf("writing the demo notes: %w", err)
	}
	if err := gitInit(dir); err != nil {
		return nil, err
	}
	chunk := 0 // the default chunk size at full speed
	if c.pace > 0 {
		chunk = 3 // a few characters at a time reads like typing
	}
	return &Demo{
		Workdir:  dir,
		Prompt:   Prompt,
		Banner:   Banner + " · workdir " + dir,
		Provider: &player{pace: c.pace, pause: c.pause, chunk: chunk},
		Model:    "scripted/demo",
	}, nil
}

// gitInit makes dir a git repository, so plans land in dir/.harness9. A
// missing git is fine: the demo then works in a plain directory.
func gitInit(dir string) error {
	git, err := exec.LookPath("git")
	if errors.Is(err, exec.ErrNotFound) || err != nil {
		return nil
	}
	cmd := exec.Command(git, "init", "-q", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git init in the demo workdir: %w: %s", err, out)
	}
	return nil
}

// ScriptJSON returns the script in the JSON form `-m scripted/<path>` loads,
// for end-to-end tests of the binary.
func ScriptJSON() ([]byte, error) {
	f := scripted.File{}
	for _, t := range Turns() {
		ft := scripted.FileTurn{Name: t.Name, Text: t.Text}
		for _, c := range t.Calls {
			ft.Calls = append(ft.Calls, scripted.FileCall{Name: c.Name, Input: c.Input})
		}
		f.Turns = append(f.Turns, ft)
	}
	return json.MarshalIndent(f, "", "  ")
}
