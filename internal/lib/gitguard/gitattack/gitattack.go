// Package gitattack holds the attacks on git's configuration that the
// harness's guards are tested against, for the tests of every package that
// guards it (gitguard itself, the sandbox's bash guard, the file tools).
// Each attack is a shell command a confined command could run in the
// workdir; it succeeds when the user's next git status or git commit, run
// unconfined afterwards, runs a program it planted, which creates a canary
// file outside the workdir.
package gitattack

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a throwaway user with a repository: Dir is the workdir (a git
// repository with one commit unless the case says otherwise), Canary the
// file a planted program would create, Home the user's home directory
// (with a .gitconfig naming the user).
type Repo struct {
	Root, Dir, Home, Canary, Global string
}

// RequireGit skips the test when git is not installed.
func RequireGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("git is not installed (apt-get install git)")
		}
		t.Skip("git is not installed (apt-get install git)")
	}
}

// NewRepo makes a user and, unless bare is set, a repository in its workdir.
func NewRepo(t testing.TB, bare bool) *Repo {
	t.Helper()
	RequireGit(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &Repo{Root: root, Dir: filepath.Join(root, "work"), Home: filepath.Join(root, "home"),
		Canary: filepath.Join(root, "CANARY")}
	r.Global = filepath.Join(r.Home, ".gitconfig")
	for _, d := range []string{r.Dir, r.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(r.Global, []byte("[user]\n\tname = User\n\temail = user@example.com\n"+
		"[protocol \"file\"]\n\tallow = always\n[init]\n\tdefaultBranch = main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !bare {
		r.Sh(t, ".", "git init -q . && echo one > a.txt && git add a.txt && git commit -qm init")
	}
	return r
}

// Env is the environment the user's git runs with.
func (r *Repo) Env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.Home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + r.Global, "C=" + r.Canary, "LANG=C"}
}

// Sh runs a shell script as the user, unconfined, in dir (relative to the
// workdir), and fails the test if it fails.
func (r *Repo) Sh(t testing.TB, dir, script string) string {
	t.Helper()
	out, err := r.Try(dir, script)
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return out
}

// Try runs a shell script as the user, unconfined, in dir.
func (r *Repo) Try(dir, script string) (string, error) {
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = filepath.Join(r.Dir, dir)
	cmd.Env = r.Env()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// UserGit is the user's next use of git in dir: git status, then a commit.
// It returns whether the canary appeared, and the output.
func (r *Repo) UserGit(dir string) (bool, string) {
	out, _ := r.Try(dir, "git status; echo change >> user.txt; git add user.txt; git commit -qm user; git status --short")
	_, err := os.Stat(r.Canary)
	return err == nil, out
}

// Case is one attack.
type Case struct {
	Name string
	// Setup is what the user had set up before the agent ran (unconfined).
	Setup string
	// Attack is the command a confined command runs in the workdir.
	Attack string
	// In is where the user runs git afterwards, relative to the workdir.
	In string
	// NoRepo starts from a workdir that is not a repository.
	NoRepo bool
}

// hook is a script that creates the canary.
func hook(path string) string {
	return fmt.Sprintf(`mkdir -p "$(dirname %[1]s)" && printf '#!/bin/sh\ntouch "%%s"\n' "$C" > %[1]s && chmod +x %[1]s`, path)
}

// fsmonitor makes git status run a program through a configuration file.
func fsmonitor(file string) string {
	return fmt.Sprintf(`git config --file %s core.fsmonitor "touch $C; false"`, file)
}

// evilCopy copies the repository's git directory to dir and sets
// core.fsmonitor in the copy.
func evilCopy(dir string) string {
	return "cp -r .git " + dir + " && " + fsmonitor(dir+"/config")
}

// Cases are the attacks, each proven to work against an unguarded
// repository by Prove.
func Cases() []Case {
	return []Case{
		{Name: "hook written", Attack: hook(".git/hooks/pre-commit")},
		{Name: "post-index-change hook", Attack: hook(".git/hooks/post-index-change")},
		{Name: "fsmonitor in .git/config", Attack: "git config core.fsmonitor \"touch $C; false\""},
		{Name: "hooksPath in .git/config", Attack: "mkdir -p h && " + hook("h/pre-commit") + " && git config core.hooksPath h"},
		{Name: "config replaced by a link", Attack: "cp .git/config evil.cfg && " + fsmonitor("evil.cfg") + " && ln -sf ../evil.cfg .git/config"},
		{Name: "hooks directory replaced by a link", Attack: "mkdir evilhooks && " + hook("evilhooks/pre-commit") +
			" && rm -rf .git/hooks && ln -s ../evilhooks .git/hooks"},
		{Name: ".git replaced by a gitdir file", Attack: evilCopy("copy") + " && mv .git .git-orig && echo 'gitdir: copy' > .git"},
		{Name: ".git replaced by a link", Attack: evilCopy("copy") + " && mv .git .git-orig && ln -s copy .git"},
		{Name: ".git replaced by another directory", Attack: evilCopy("copy") + " && mv .git .git-orig && mv copy .git"},
		{Name: "commondir", Attack: evilCopy("copy") + " && echo ../copy > .git/commondir"},
		{Name: "config.worktree", Setup: "git config extensions.worktreeConfig true",
			Attack: fsmonitor(".git/config.worktree")},
		{Name: "include.path target", Setup: "touch project.gitconfig && git config include.path ../project.gitconfig",
			Attack: "printf '[core]\\n\\tfsmonitor = \"touch %s; false\"\\n' \"$C\" > project.gitconfig"},
		{Name: "includeIf target", Setup: "touch inc.gitconfig && git config 'includeIf.gitdir:/.path' ../inc.gitconfig",
			Attack: "printf '[core]\\n\\tfsmonitor = \"touch %s; false\"\\n' \"$C\" > inc.gitconfig"},
		{Name: "hooksPath inside the workdir", Setup: "mkdir .githooks && git config core.hooksPath .githooks",
			Attack: hook(".githooks/pre-commit")},
		{Name: "hooksPath from the global config", Setup: "git config --global core.hooksPath .hooks && mkdir .hooks",
			Attack: hook(".hooks/pre-commit")},
		{Name: "submodule configuration", Setup: submodule,
			Attack: fsmonitor(".git/modules/sub/config")},
		{Name: "submodule hook", Setup: submodule, In: "sub", Attack: hook(".git/modules/sub/hooks/pre-commit")},
		{Name: "submodule .git file redirected", Setup: submodule,
			Attack: evilCopy("evilsub") + " && echo 'gitdir: ../evilsub' > sub/.git"},
		{Name: "gitlink added with its own .git", Attack: evilCopy("evil") + " && mkdir planted && echo 'gitdir: ../evil' > planted/.git" +
			" && git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),planted"},
		{Name: "gitlink .git with a trailing blank", Attack: "cp -r .git bad && " + evilCopy("'bad '") +
			" && mkdir planted && printf 'gitdir: ../bad \\n' > planted/.git" +
			" && git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),planted"},
		{Name: "gitlink .git with a second line", Attack: "cp -r .git good && " + evilCopy("'good\nx'") +
			" && mkdir planted && printf 'gitdir: ../good\\nx' > planted/.git" +
			" && git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),planted"},
		{Name: "commondir with a trailing blank", Attack: "cp -r .git bad && " + evilCopy("'bad '") +
			" && printf '../bad \\n' > .git/commondir"},
		{Name: "gitlink smuggled into an index that looks unchanged", Attack: indexSmuggle},
		{Name: "gitlink beneath a core.worktree elsewhere", Attack: "git config core.worktree ../wt2 && mkdir -p wt2/plant && " +
			"cp -r .git evil && git config --file evil/config --unset core.worktree && " + fsmonitor("evil/config") +
			" && echo 'gitdir: ../../evil' > wt2/plant/.git && git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),plant"},
		{Name: "global hooksPath beneath a core.worktree elsewhere", Setup: "git config --global core.hooksPath .hooks && mkdir .hooks",
			Attack: "git config core.worktree ../wt2 && mkdir wt2 && cp a.txt wt2/ && " + hook("wt2/.hooks/pre-commit")},
		{Name: "nested repository added as a gitlink", Attack: "git init -q nested && (cd nested && git commit -q --allow-empty -m x && " +
			fsmonitor(".git/config") + ") && git add nested 2>/dev/null"},
		{Name: "linked worktree .git redirected", Setup: "git worktree add -q wt", In: "wt",
			Attack: evilCopy("evilwt") + " && echo \"gitdir: $PWD/evilwt\" > wt/.git"},
		{Name: "linked worktree config", Setup: "git config extensions.worktreeConfig true && git worktree add -q wt", In: "wt",
			Attack: fsmonitor(".git/worktrees/wt/config.worktree")},
		{Name: "new repository with fsmonitor", NoRepo: true,
			Attack: "git init -q . && git config core.fsmonitor \"touch $C; false\""},
		{Name: "new repository with a hook", NoRepo: true, Attack: "git init -q . && " + hook(".git/hooks/pre-commit")},
	}
}

// indexSmuggle adds a gitlink "plant", whose .git leads to a copy of the
// repository with core.fsmonitor set, in place of a.txt (a name of the same
// length, so the index keeps its size), writes the new index back into the
// old index's inode and gives it its old modification time: an index that
// looks unchanged by size, inode and time, but that git status reads anew.
const indexSmuggle = "m=$(stat -c %.9Y .git/index) && ln .git/index idx-keep && " + "cp -r .git evil && " +
	`git config --file evil/config core.fsmonitor "touch $C; false"` +
	" && mkdir plant && echo 'gitdir: ../evil' > plant/.git && git rm -q --cached a.txt" +
	" && git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),plant && git write-tree >/dev/null" +
	" && cat .git/index > idx-keep && mv idx-keep .git/index && touch -d @$m .git/index"

// submodule sets up a submodule "sub" from a local repository.
const submodule = "git init -q ../subsrc && git -C ../subsrc commit -q --allow-empty -m s && " +
	"git submodule add -q ../subsrc sub && git commit -qm sub"

// Prove runs the case against an unguarded repository and fails the test
// unless the canary appears: an attack that does nothing proves nothing.
func (c Case) Prove(t *testing.T) {
	t.Helper()
	r := c.Start(t)
	r.Sh(t, ".", c.Attack)
	if ran, out := r.UserGit(c.In); !ran {
		t.Fatalf("the attack %q does not work even unguarded; the test proves nothing:\n%s", c.Name, out)
	}
}

// Start makes the repository of a case, set up as the user had it.
func (c Case) Start(t testing.TB) *Repo {
	t.Helper()
	r := NewRepo(t, c.NoRepo)
	if c.Setup != "" {
		r.Sh(t, ".", c.Setup)
	}
	return r
}

// Check runs git as the user after a guarded attack and fails the test if
// a planted program ran.
func (c Case) Check(t *testing.T, r *Repo) {
	t.Helper()
	if ran, out := r.UserGit(c.In); ran {
		t.Errorf("%s: the user's git ran a planted program:\n%s", c.Name, out)
	}
}

// Legit are commands of ordinary work that touch git's configuration
// harmlessly; the guard must leave their effect alone. Want is a command
// whose output must contain WantOut afterwards.
type Legit struct {
	Command, Want, WantOut string
	NoRepo                 bool
}

// LegitCases are the commands a guard must let through.
func LegitCases() []Legit {
	return []Legit{
		{Command: "git init -q . && echo x > f && git add -A && git commit -qm first", Want: "git log --oneline", WantOut: "first", NoRepo: true},
		{Command: "echo b > b.txt && git add b.txt && git commit -qm second", Want: "git log --oneline", WantOut: "second"},
		{Command: "git config user.email agent@example.com", Want: "git config user.email", WantOut: "agent@example.com"},
		{Command: "git remote add origin https://example.com/r.git", Want: "git remote -v", WantOut: "example.com/r.git"},
		{Command: "git checkout -qb feature && git stash list", Want: "git branch --show-current", WantOut: "feature"},
		{Command: "git init -q lsrc && git -C lsrc commit -q --allow-empty -m s && git submodule add -q ./lsrc lib",
			Want: "git submodule status", WantOut: "lib"},
		{Command: "git worktree add -q inner", Want: "git worktree list", WantOut: "inner"},
	}
}

// Start makes the repository of a legit case.
func (l Legit) Start(t testing.TB) *Repo { return NewRepo(t, l.NoRepo) }

// Check fails the test unless the command's effect is still there.
func (l Legit) Check(t *testing.T, r *Repo) {
	t.Helper()
	out, _ := r.Try(".", l.Want)
	if !strings.Contains(out, l.WantOut) {
		t.Errorf("after %q, %q gives:\n%s\nwant %q", l.Command, l.Want, out, l.WantOut)
	}
}
