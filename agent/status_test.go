package agent_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/driver"
)

// A run's status is the driver's, converted: the spellings agree.
func TestRunStatusesAreTheDriversStatuses(t *testing.T) {
	for got, want := range map[agent.RunStatus]driver.Status{
		agent.RunCompleted: driver.Completed, agent.RunAwaitingApproval: driver.AwaitingApproval,
		agent.RunStalled: driver.Stalled, agent.RunMaxTurns: driver.MaxTurns,
		agent.RunCancelled: driver.Cancelled, agent.RunError: driver.Error,
	} {
		if string(got) != string(want) {
			t.Errorf("agent status %q is the driver's %q", got, want)
		}
	}
}

// The answers a front end gives are listed where a user looks for them:
// `go doc agent.Decision`, `go doc planning.ReviewChoice` and `go doc
// agent.RunStatus` show every constant, not the first of a group.
func TestAnswersAreVisibleInGoDoc(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available")
	}
	for sym, names := range map[string][]string{
		"github.com/harness9/harness9/agent.Decision":        {"Deny", "AllowOnce", "AllowSession", "AllowProject", "Refuse"},
		"github.com/harness9/harness9/planning.ReviewChoice": {"ReviewApprove", "ReviewApproveConfirm", "ReviewRefine", "ReviewCancel"},
		"github.com/harness9/harness9/agent.RunStatus":       {"RunCompleted", "RunAwaitingApproval", "RunStalled", "RunMaxTurns", "RunCancelled", "RunError"},
	} {
		out, err := exec.Command(goBin, "doc", sym).CombinedOutput()
		if err != nil {
			t.Fatalf("go doc %s: %v\n%s", sym, err, out)
		}
		for _, n := range names {
			if !strings.Contains(string(out), "const "+n+" ") {
				t.Errorf("go doc %s does not show const %s:\n%s", sym, n, out)
			}
		}
	}
}
