package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/tool/mcptool"
)

// refusal is the tool error a headless run without a terminal returns for
// a call that needs permission: it says why, and names the --allow rule
// that would let it run, so the model can tell the user or do without it.
func refusal(req *agent.ApprovalRequest) string {
	allow := make([]string, len(req.Rules))
	for i, r := range req.Rules {
		allow[i] = "--allow " + shellQuote(r)
	}
	how := strings.Join(allow, " ")
	if how == "" {
		how = fmt.Sprintf("--allow %s (which allows every %s call; no narrower rule covers this one)", req.Call.Name, req.Call.Name)
	}
	return fmt.Sprintf("%s was not run: it needs permission (%s) and this headless run has no terminal to ask on. "+
		"To allow it, run harness9 again with %s, or add the rule to [permissions] allow in config.toml. "+
		"Carry on without it if you can, and tell the user which permission is missing.",
		req.Call.Name, req.Why, how)
}

// checkPermissions is doctor's "permissions" line: every rule in effect,
// with the list it is in and where it comes from; a project's ignored
// allow rules make it a warning.
func checkPermissions(_ context.Context, d *doctorRun) (string, string) {
	var parts []string
	for _, l := range d.cfg.Permissions {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", l.Action, strings.Join(l.Rules, ", "), l.Source))
	}
	detail := "no rules: each mode's default applies (Default asks before what the sandbox cannot contain, AutoEdit before every change)"
	if len(parts) > 0 {
		detail = strings.Join(parts, "; ")
	}
	if len(d.cfg.Warnings) > 0 {
		return checkWarn, detail + "; " + strings.Join(d.cfg.Warnings, "; ")
	}
	return checkOK, detail
}

// mcpReadOnly passes on the tools the user's config.toml declares
// read-only ([mcp_servers.NAME] read_only_tools); a project's .mcp.json
// cannot declare any.
func mcpReadOnly(c *config.Config) []mcptool.Option {
	var opts []mcptool.Option
	for name, s := range c.MCPServers {
		if len(s.ReadOnlyTools) > 0 {
			opts = append(opts, mcptool.WithReadOnlyTools(name, s.ReadOnlyTools...))
		}
	}
	return opts
}
