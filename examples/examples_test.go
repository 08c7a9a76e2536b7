// Package examples holds runnable programs built on harness9's library; its
// test runs each one offline and checks what it printed.
package examples

import (
	"os/exec"
	"strings"
	"testing"
)

func TestExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs each example")
	}
	for dir, want := range map[string][]string{
		// plans read-only, is approved, executes, and the file is there
		"./planning-agent": {"plan   Record the line count", "done   awaiting_approval", "done   completed", "LINES.txt: 5 lines of Go"},
		// the custom provider's tool call ran and its answer came back
		"./custom-provider": {"tool   list_files", "The workdir holds", "done   completed"},
		// the assembled agent found the project's skill, planned with it,
		// executed the plan into a task directory of the repository
		"./coding-agent": {"skill    go-style", "agent    explore", "tool     use_skill", "plan     Add a greeting: write hello.go",
			"done     awaiting_approval", "approved ", "/project/.harness9/tasks/", "done     completed", "hello.go: 48 bytes"},
		// the embedded service ran a session over its own HTTP API
		"./service": {"serving  http://127.0.0.1:", "plan     Notes", "done     awaiting_approval", "approved",
			"tool     write_file", "done     completed", "NOTES.md An example session"},
	} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			args := []string{"run", dir}
			if dir == "./custom-provider" {
				args = append(args, t.TempDir())
			}
			out, err := exec.Command("go", args...).CombinedOutput()
			if err != nil {
				t.Fatalf("go run %s: %v\n%s", dir, err, out)
			}
			for _, w := range want {
				if !strings.Contains(string(out), w) {
					t.Errorf("go run %s printed no %q:\n%s", dir, w, out)
				}
			}
		})
	}
}
