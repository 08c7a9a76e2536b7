package config

import (
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/hook"
)

func TestHooksFromUserAndProject(t *testing.T) {
	home := writeConfig(t, `
[hooks]
unconfined = true

[[hooks.pre_tool_use]]
matcher = "bash(git push:*)"
command = "echo no >&2; exit 2"
timeout = "30s"

[[hooks.stop]]
command = "make lint"
`)
	wd := writeProject(t, "[[hooks.session_start]]\ncommand = \"touch started\"\n")
	c, err := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: home}))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Hooks.Unconfined || len(c.Hooks.User) != 2 || len(c.Hooks.Project) != 1 {
		t.Fatalf("hooks %+v", c.Hooks)
	}
	// Events come out in session order, each with its source.
	u := c.Hooks.User
	if u[0].Event != hook.PreToolUse || u[0].Timeout != 30*time.Second || u[0].Matcher != "bash(git push:*)" || u[1].Event != hook.Stop {
		t.Errorf("user hooks %+v", u)
	}
	if p := c.Hooks.Project[0]; p.Event != hook.SessionStart || !strings.HasSuffix(p.Source, ProjectConfigFile) {
		t.Errorf("project hook %+v", p)
	}
}

func TestBadHooksNameTheKey(t *testing.T) {
	for _, tc := range []struct{ user, project, want string }{
		{user: "[[hooks.pre_tool_use]]\ncommand = \"x\"\ntimeout = \"soon\"\n", want: "hooks.pre_tool_use[0].timeout"},
		{user: "[[hooks.pre_tool_use]]\nmatcher = \"bash(\"\ncommand = \"x\"\n", want: "hooks.pre_tool_use[0]"},
		{user: "[[hooks.stop]]\nmatcher = \"bash\"\ncommand = \"x\"\n", want: "matcher applies only"},
		{user: "[[hooks.stop]]\nmatcher = \"\"\n", want: "needs a command"},
		{user: "[[hooks.on_save]]\ncommand = \"x\"\n", want: "on_save"},
	} {
		home := writeConfig(t, tc.user)
		wd := writeProject(t, tc.project)
		_, err := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: home}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("user %q project %q: err %v, want it to mention %q", tc.user, tc.project, err, tc.want)
		}
	}
}

// Only the user may let hooks run outside the sandbox: a project's
// hooks.unconfined is dropped with a warning.
func TestProjectCannotUnconfineHooks(t *testing.T) {
	home := writeConfig(t, "")
	wd := writeProject(t, "[hooks]\nunconfined = true\n\n[[hooks.stop]]\ncommand = \"true\"\n")
	c, err := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Hooks.Unconfined || len(c.Hooks.Project) != 1 || !strings.Contains(strings.Join(c.Warnings, "\n"), "hooks.unconfined") {
		t.Fatalf("hooks %+v warnings %v", c.Hooks, c.Warnings)
	}
}
