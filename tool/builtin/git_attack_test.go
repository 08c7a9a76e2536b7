//go:build unix

package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/internal/lib/gitguard/gitattack"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
)

// fileAttack plants what git runs with a file tool alone. The content
// would work: Prove writes it directly (and makes it executable, as a
// later bash chmod +x would) and sees the user's git run it.
type fileAttack struct {
	name, setup, path, content string
	in                         string
	noRepo                     bool
	edit                       bool // edit_file instead of write_file (old "[core]")
}

func fileAttacks() []fileAttack {
	cfg := "[core]\n\tfsmonitor = \"touch $C; false\"\n"
	hook := "#!/bin/sh\ntouch \"$C\"\n"
	evil := func(dir string) string {
		return "git init -q ../e && cp -r ../e/.git " + dir + " && git config --file " + dir + "/config core.fsmonitor \"touch $C; false\""
	}
	return []fileAttack{
		{name: "write .git/config", path: ".git/config", content: cfg},
		{name: "edit .git/config", path: ".git/config", content: cfg, edit: true},
		{name: "write a hook", path: ".git/hooks/pre-commit", content: hook},
		{name: "write a hook through a link", setup: "ln -s .git/hooks hk", path: "hk/pre-commit", content: hook},
		{name: "write .git/commondir", setup: "cp -r .git copy && git config --file copy/config core.fsmonitor \"touch $C; false\"",
			path: ".git/commondir", content: "../copy\n"},
		{name: "write a .git file", noRepo: true, setup: evil("evil"), path: ".git", content: "gitdir: evil\n"},
		{name: "write a submodule's .git", setup: "git init -q ../s && git -C ../s commit -q --allow-empty -m s && " +
			"git submodule add -q ../s sub && git commit -qm sub && " + evil("evilsub"),
			path: "sub/.git", content: "gitdir: ../evilsub\n"},
		{name: "write a submodule's config", setup: "git init -q ../s && git -C ../s commit -q --allow-empty -m s && " +
			"git submodule add -q ../s sub && git commit -qm sub",
			path: ".git/modules/sub/config", content: cfg},
		{name: "write into core.hooksPath", setup: "mkdir .githooks && git config core.hooksPath .githooks",
			path: ".githooks/pre-commit", content: hook},
		{name: "write into a global core.hooksPath", setup: "git config --global core.hooksPath .hooks && mkdir .hooks",
			path: ".hooks/pre-commit", content: hook},
		{name: "write an included configuration", setup: "touch p.gitconfig && git config include.path ../p.gitconfig",
			path: "p.gitconfig", content: cfg},
	}
}

func (a fileAttack) workspace(t *testing.T, r *gitattack.Repo) *tool.Workspace {
	ws, err := tool.NewWorkspace(r.Dir, tool.WithHome(r.Home), tool.WithGitConfig(r.Global))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func (a fileAttack) start(t *testing.T) (*gitattack.Repo, string) {
	r := gitattack.NewRepo(t, a.noRepo)
	if a.setup != "" {
		r.Sh(t, ".", a.setup)
	}
	return r, strings.ReplaceAll(a.content, "$C", r.Canary)
}

// The file tools refuse every path git reads to decide what to run, say
// why, and the user's next git status and git commit run nothing planted.
func TestFileToolsCannotPlantWhatGitRuns(t *testing.T) {
	for _, a := range fileAttacks() {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			// The attack works when the write is not refused.
			r, content := a.start(t)
			p := filepath.Join(r.Dir, a.path)
			if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
				t.Fatal(err)
			}
			if ran, out := r.UserGit(a.in); !ran {
				t.Fatalf("writing %s directly plants nothing; the test proves nothing:\n%s", a.path, out)
			}

			r, content = a.start(t)
			ws := a.workspace(t, r)
			var res tool.Result
			if a.edit {
				res = call(t, NewEditFile(ws), EditFileInput{Path: a.path, OldString: "[core]", NewString: content})
			} else {
				res = call(t, NewWriteFile(ws), WriteFileInput{Path: a.path, Content: content})
			}
			if !res.IsError || !strings.Contains(res.Output, "git") || !strings.Contains(res.Output, a.path) {
				t.Errorf("%s was not refused with a reason: %+v", a.path, res)
			}
			if strings.Contains(res.Output, r.Root) {
				t.Errorf("the refusal names an absolute path: %s", res.Output)
			}
			_ = os.Chmod(p, 0o755) // what a later bash chmod +x would do
			if ran, out := r.UserGit(a.in); ran {
				t.Errorf("the user's git ran what %s planted:\n%s", a.path, out)
			}
		})
	}
}

// Workspace.Append and OpenFile, what a function tool writes with, refuse
// the same paths: the user's next git runs nothing planted.
func TestAppendAndOpenFileCannotPlantWhatGitRuns(t *testing.T) {
	for _, a := range fileAttacks() {
		if a.edit {
			continue
		}
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			r, content := a.start(t)
			ws := a.workspace(t, r)
			if _, err := ws.Append(a.path, []byte(content)); err == nil || !strings.Contains(err.Error(), "git") {
				t.Errorf("Append(%s) = %v, want refused because of git", a.path, err)
			}
			if f, err := ws.OpenFile(a.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755); err == nil {
				_, _ = f.WriteString(content)
				f.Close()
				t.Errorf("OpenFile(%s) for writing succeeded", a.path)
			}
			_ = os.Chmod(filepath.Join(r.Dir, a.path), 0o755)
			if ran, out := r.UserGit(a.in); ran {
				t.Errorf("the user's git ran what %s planted:\n%s", a.path, out)
			}
		})
	}
}

// Removing or changing the mode of git's files through the Workspace is
// refused too; ordinary files named like git's are not.
func TestWorkspaceRefusesGitChangesOnly(t *testing.T) {
	r := gitattack.NewRepo(t, false)
	r.Sh(t, ".", "chmod -x .git/hooks/*.sample")
	ws, err := tool.NewWorkspace(r.Dir, tool.WithHome(r.Home))
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Chmod(".git/hooks/pre-commit.sample", 0o755); err == nil {
		t.Error("Chmod of a hook was allowed")
	}
	if err := ws.Remove(".git/config"); err == nil {
		t.Error("Remove of .git/config was allowed")
	}
	if err := ws.Remove(".GIT/config"); err == nil {
		t.Error("Remove of .GIT/config was allowed")
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".git", "config")); err != nil {
		t.Errorf(".git/config: %v", err)
	}
	for _, p := range []string{".gitignore", ".gitattributes", ".github/workflows/ci.yml", "docs/git/config",
		"src/hooks/pre-commit", "config", ".gitmodules.md"} {
		if _, err := ws.WriteFile(p, []byte("x\n")); err != nil {
			t.Errorf("WriteFile(%s): %v", p, err)
		}
		if err := ws.Remove(p); err != nil {
			t.Errorf("Remove(%s): %v", p, err)
		}
	}
}

// A bash call that plants a hook and a core.fsmonitor comes back failed,
// saying what harness9 undid (relative paths only), with or without the
// kernel sandbox; the user's git runs nothing planted.
func TestBashCallSaysWhatTheGitGuardUndid(t *testing.T) {
	for _, kernel := range []bool{true, false} {
		if kernel && !sandbox.Probe().Available {
			continue
		}
		r := gitattack.NewRepo(t, false)
		ws, err := tool.NewWorkspace(r.Dir, tool.WithHome(r.Home))
		if err != nil {
			t.Fatal(err)
		}
		opts := []sandbox.Option{sandbox.WithUserGitConfig(r.Home, r.Global)}
		if !kernel {
			opts = append(opts, sandbox.WithSupport(sandbox.Support{Reason: "simulated"}))
		}
		sb, err := sandbox.New(r.Dir, opts...)
		if err != nil {
			t.Fatal(err)
		}
		b := NewBash(ws, WithSandbox(sb), WithBaseEnv(r.Env()))
		res := call(t, b, BashInput{Command: `printf '#!/bin/sh\ntouch "%s"\n' "$C" > .git/hooks/pre-commit && ` +
			`chmod +x .git/hooks/pre-commit && git config core.fsmonitor "touch $C; false" && echo planted`})
		if !res.IsError || !strings.Contains(res.Output, "planted") ||
			!strings.Contains(res.Output, ".git/hooks/pre-commit (removed)") || !strings.Contains(res.Output, ".git/config (restored)") {
			t.Errorf("kernel %v: %+v", kernel, res)
		}
		if strings.Contains(res.Output, r.Root) {
			t.Errorf("kernel %v: the result names an absolute path:\n%s", kernel, res.Output)
		}
		if ran, out := r.UserGit(""); ran {
			t.Errorf("kernel %v: the user's git ran a planted program:\n%s", kernel, out)
		}
	}
}
