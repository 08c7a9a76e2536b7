package permission_test

import (
	"fmt"

	"github.com/harness9/harness9/permission"
)

// Rules decide a call by precedence (deny > ask > allow > the mode's
// default). A shell line is allowed only if every command on it is covered.
func ExampleRules_Decide() {
	rules := permission.New("/src/app")
	_ = rules.Add(permission.Allow, "config.toml", "bash(go test:*)", "bash(git diff:*)")
	_ = rules.Add(permission.Deny, "config.toml", "edit_file(vendor/**)")

	for _, c := range []permission.Call{
		{Tool: "bash", Command: "go test ./... && git diff --stat"},
		{Tool: "bash", Command: "go test ./... ; rm -rf /"},
		{Tool: "edit_file", Path: "vendor/x/y.go"},
		{Tool: "edit_file", Path: "main.go"},
	} {
		d := rules.Decide(c, permission.Ask)
		fmt.Printf("%-10s %-35q %s [%s]\n", c.Tool, c.Command+c.Path, d.Action, d.Rule())
	}
	// Output:
	// bash       "go test ./... && git diff --stat"  allow [bash(go test:*), bash(git diff:*)]
	// bash       "go test ./... ; rm -rf /"          ask []
	// edit_file  "vendor/x/y.go"                     deny [edit_file(vendor/**)]
	// edit_file  "main.go"                           ask []
}
