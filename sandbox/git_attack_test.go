package sandbox

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/harness9/harness9/internal/lib/gitguard/gitattack"
)

// runIn runs a bash command in r's workdir confined by p, with the user's
// environment, and returns its output and what the git guard undid.
func runIn(t *testing.T, sb *Sandbox, r *gitattack.Repo, p Policy, command string) (string, []string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", command)
	cmd.Env = r.Env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	proc, err := sb.Start(cmd, p)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	_ = cmd.Wait()
	return out.String(), proc.Cleanup()
}

func gitSandbox(t *testing.T, r *gitattack.Repo) *Sandbox {
	t.Helper()
	sb, err := New(r.Dir, WithUserGitConfig(r.Home, r.Global))
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// Every attack on git's configuration that a WorkspaceWrite command can
// make is undone before the call returns: the user's next git status and
// git commit, run unconfined, run nothing planted. Each attack is first
// shown to work when nothing guards the repository.
func TestWorkspaceWriteCannotPlantWhatGitRuns(t *testing.T) {
	requireLandlock(t)
	for _, c := range gitattack.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			c.Prove(t)
			r := c.Start(t)
			out, undone := runIn(t, gitSandbox(t, r), r, WorkspaceWrite, c.Attack)
			if len(undone) == 0 {
				t.Errorf("the guard undid nothing; the command said:\n%s", out)
			}
			for _, u := range undone {
				if strings.Contains(u, r.Root) {
					t.Errorf("what the guard reports names an absolute path: %s", u)
				}
			}
			c.Check(t, r)
		})
	}
}

// Ordinary git work under WorkspaceWrite keeps its effect and the guard
// reports nothing.
func TestWorkspaceWriteGitWorkIsKept(t *testing.T) {
	requireLandlock(t)
	for _, l := range gitattack.LegitCases() {
		t.Run(l.Command, func(t *testing.T) {
			t.Parallel()
			r := l.Start(t)
			out, undone := runIn(t, gitSandbox(t, r), r, WorkspaceWrite, l.Command)
			if len(undone) > 0 {
				t.Errorf("the guard undid %v; the command said:\n%s", undone, out)
			}
			l.Check(t, r)
		})
	}
}

// Two commands running at once share the guard's record: a hook planted by
// one is not part of the other's "before", so it does not survive whichever
// ends last.
func TestConcurrentCommandsShareTheGitRecord(t *testing.T) {
	requireLandlock(t)
	r := gitattack.NewRepo(t, false)
	sb := gitSandbox(t, r)
	start := func(command string) (*exec.Cmd, *Process) {
		cmd := exec.Command("bash", "-c", command)
		cmd.Env = r.Env()
		proc, err := sb.Start(cmd, WorkspaceWrite)
		if err != nil {
			t.Fatal(err)
		}
		return cmd, proc
	}
	plantCmd, planter := start(`printf '#!/bin/sh\ntouch "%s"\n' "$C" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`)
	_ = plantCmd.Wait()
	// The second command starts after the hook is there and ends last.
	waitCmd, waiter := start("sleep 0.2")
	planter.Cleanup()
	_ = waitCmd.Wait()
	waiter.Cleanup()
	if ran, out := r.UserGit(""); ran {
		t.Errorf("the hook survived two overlapping commands:\n%s", out)
	}
}

// A long-lived process (an MCP server) does not hold the shared record: a
// change the user makes to git's configuration while it runs survives the
// model's next command.
func TestLongLivedProcessDoesNotPinTheGitRecord(t *testing.T) {
	requireLandlock(t)
	r := gitattack.NewRepo(t, false)
	sb := gitSandbox(t, r)
	server := exec.Command("sleep", "30")
	server.Env = r.Env()
	proc, err := sb.Start(server, WorkspaceWrite, LongLived())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = server.Process.Kill(); _ = server.Wait(); proc.Cleanup() }()
	r.Sh(t, ".", "git config core.hooksPath .githooks") // the user, meanwhile
	if _, undone := runIn(t, sb, r, WorkspaceWrite, "true"); len(undone) > 0 {
		t.Errorf("the model's command undid the user's change: %v", undone)
	}
	if out := r.Sh(t, ".", "git config core.hooksPath"); !strings.Contains(out, ".githooks") {
		t.Errorf("core.hooksPath = %q", out)
	}
}

// The per-project cache is writable by WorkspaceWrite commands and lasts
// beyond them, outside the workdir the guard looks at: a core.worktree
// (a harmless key by itself) pointed there must not lead the user's git
// status to a submodule planted in the cache, whose .git leads to a copy
// of the repository with core.fsmonitor set.
func TestCoreWorktreeCannotLeadIntoTheCache(t *testing.T) {
	requireLandlock(t)
	const plant = `c=$(dirname "$GOCACHE") && mkdir -p "$c/plant" && cp -r .git "$c/evil" && ` +
		`git config --file "$c/evil/config" core.fsmonitor "touch $C; false" && echo 'gitdir: ../evil' > "$c/plant/.git" && ` +
		`git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),plant && `
	for _, attack := range [][]string{
		{plant + `git config core.worktree "$c" && echo planted`},
		// In two steps: a core.worktree inside the workdir, then a link
		// there to the cache.
		{plant + `git config core.worktree ../wt && echo planted`, `ln -s "$(dirname "$GOCACHE")" wt && echo planted`},
	} {
		r := gitattack.NewRepo(t, false)
		sb, err := New(r.Dir, WithUserGitConfig(r.Home, r.Global), WithCacheDir(r.Root+"/cache"))
		if err != nil {
			t.Fatal(err)
		}
		var undone []string
		for _, step := range attack {
			out, u := runIn(t, sb, r, WorkspaceWrite, step)
			if !strings.Contains(out, "planted") {
				t.Fatalf("the attack did not run:\n%s", out)
			}
			undone = append(undone, u...)
		}
		if ran, gitOut := r.UserGit(""); ran {
			t.Errorf("%d steps: the user's git ran a program planted in the cache (the guard undid %v):\n%s", len(attack), undone, gitOut)
		}
	}
}
