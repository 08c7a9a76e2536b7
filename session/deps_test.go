package session_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The stores save plain planning types (package planning/plan) and must not
// link what the planning module needs for its gate and tools: every
// program that opens a store, the Postgres one included, would carry the
// shell parser and the JSON Schema library.
func TestStoresDoNotDependOnThePlanningModule(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available")
	}
	out, err := exec.Command(goBin, "list", "-deps", "github.com/harness9/harness9/session/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []string{"mvdan.cc/sh", "github.com/google/jsonschema-go", "github.com/invopop/jsonschema",
		"github.com/harness9/harness9/planning", "github.com/harness9/harness9/planning/shellgate"}
	for dep := range strings.Lines(string(out)) {
		dep = strings.TrimSpace(dep)
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") && !strings.HasPrefix(dep, "github.com/harness9/harness9/planning/plan") {
				t.Errorf("a session package depends on %s", dep)
			}
		}
	}
}
