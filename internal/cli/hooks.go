package cli

import (
	"context"
	"fmt"

	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/hook"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/sandbox"
)

// hookOptions are the hooks in effect: the user's, always (the user wrote
// them), and the project's only when the user trusts the project (a cloned
// repository must not run commands by being opened; the runtime's
// untrusted notice says what was left out).
func hookOptions(c *config.Config) []harness.Option {
	hooks := c.Hooks.User
	if len(c.Hooks.Project) > 0 && projectTrusted(c) {
		hooks = append(hooks[:len(hooks):len(hooks)], c.Hooks.Project...)
	}
	if len(hooks) == 0 {
		return nil
	}
	return []harness.Option{harness.WithHooks(hooks, hook.WithUnconfined(c.Hooks.Unconfined))}
}

// checkHooks is doctor's line on hooks: how many run, whether the
// project's are left out, and whether the kernel sandbox confines them.
func checkHooks(_ context.Context, d *doctorRun) (string, string) {
	c := d.cfg
	user, project := len(c.Hooks.User), len(c.Hooks.Project)
	if user+project == 0 {
		return checkOK, "none configured"
	}
	detail := fmt.Sprintf("%d of yours", user)
	status := checkOK
	if project > 0 {
		if ok, why := trustState(c); ok {
			detail += fmt.Sprintf(", %d of the trusted project", project)
		} else {
			status = checkWarn
			detail += fmt.Sprintf(", %d of %s not run (%s; `harness9 trust` runs them)", project, config.ProjectConfigFile, why)
		}
	}
	sup := sandbox.Probe()
	switch {
	case c.Sandbox.Mode == config.SandboxOff || !sup.Available:
		why := "the sandbox is off"
		if c.Sandbox.Mode != config.SandboxOff {
			why = "no kernel sandbox: " + sup.Reason
		}
		if c.Hooks.Unconfined {
			return checkWarn, detail + "; " + why + ", hooks run unconfined ([hooks] unconfined = true)"
		}
		return checkWarn, detail + "; " + why + ", so hooks do not run (set [hooks] unconfined = true in " + c.File + " to run them anyway)"
	}
	return status, detail + "; confined by the kernel sandbox under the mode's policy"
}
