//go:build unix

package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const envStdoutHelper = "HARNESS9_TEST_RESERVE_STDOUT"

// Once `acp` has reserved standard output, whatever else in the process
// writes to it — a print, a child that inherits it — lands on standard
// error, and the protocol's stream stays clean.
func TestReserveStdoutKeepsProtocolClean(t *testing.T) {
	if os.Getenv(envStdoutHelper) == "1" {
		w, err := protocolOutput(&env{stdout: os.Stdout})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Fprintln(w, `{"jsonrpc":"2.0","method":"proto"}`)
		fmt.Println("stray print")
		child := exec.Command("sh", "-c", "echo stray child")
		child.Stdout = os.Stdout
		_ = child.Run()
		fmt.Fprintln(w, `{"jsonrpc":"2.0","method":"still proto"}`)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReserveStdoutKeepsProtocolClean$")
	cmd.Env = append(os.Environ(), envStdoutHelper+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper: %v\n%s", err, errb.String())
	}
	if got := out.String(); got != "{\"jsonrpc\":\"2.0\",\"method\":\"proto\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"still proto\"}\n" {
		t.Fatalf("the protocol stream carried %q", got)
	}
	if !strings.Contains(errb.String(), "stray print") || !strings.Contains(errb.String(), "stray child") {
		t.Fatalf("the stray writes went nowhere visible; stderr: %q", errb.String())
	}
}
