package eval_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/eval"
	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
)

// gitIn runs git in dir with no configuration but the repository's and
// returns its output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgSign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// twoCommits makes a git repository in dir whose first commit has
// version.txt "first" and second "second", and returns the first's hash.
func twoCommits(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (apt-get install git)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "--quiet")
	writeFile(t, filepath.Join(dir, "version.txt"), "first\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "kept\n")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "--quiet", "-m", "first")
	first := gitIn(t, dir, "rev-parse", "HEAD")
	writeFile(t, filepath.Join(dir, "version.txt"), "second\n")
	writeFile(t, filepath.Join(dir, "added-later.txt"), "later\n")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "--quiet", "-m", "second")
	return first
}

// repoTask writes the task.toml of task directory dir, which starts from
// its repository repo/, with the rest of the file in body, and loads it.
func repoTask(t *testing.T, dir, body string) *eval.Task {
	t.Helper()
	writeFile(t, filepath.Join(dir, "task.toml"), "version = 1\nrepo = \"repo\"\n"+body)
	task, err := eval.LoadTask(dir)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// runDirect runs task once in direct mode.
func runDirect(t *testing.T, r *eval.Runner, task *eval.Task) eval.Record {
	t.Helper()
	rec, err := r.RunOne(context.Background(), eval.Job{Task: task, Config: eval.Config{Mode: eval.Direct, Model: "m"}, Attempt: 1})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestGitFixture: a task with repo and commit starts from a clone of the
// repository at that commit, not at its newest one: the agent reads the
// pinned content and the check runs against it.
func TestGitFixture(t *testing.T) {
	suite := t.TempDir()
	task := filepath.Join(suite, "pinned")
	first := twoCommits(t, filepath.Join(task, "repo"))
	pinned := repoTask(t, task, `instruction = "Read version.txt."
commit = "`+first+`"
check = "grep -qx first version.txt && test ! -e added-later.txt && test \"$(git rev-parse HEAD)\" = `+first+` && echo checked-first"
`)
	var seen []string
	read := func(context.Context, *eval.Task, eval.Config) (llm.Provider, string, error) {
		return scripted.New(
			scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "version.txt"}))},
			scripted.Turn{Respond: func(req llm.Request) scripted.Turn {
				seen = append(seen, req.Messages[len(req.Messages)-1].Content)
				return scripted.Turn{Text: "Done."}
			}}), "m", nil
	}
	r := eval.NewRunner(read, eval.WithAgentOptions(harness.WithDataDir(t.TempDir())), eval.WithCommandEnv(os.Environ()),
		eval.WithUnconfinedChecks(true), eval.WithKeep(true), eval.WithTempDir(t.TempDir()))
	rec := runDirect(t, r, pinned)
	if !rec.Pass || !strings.Contains(rec.CheckOutput, "checked-first") {
		t.Fatalf("the check did not pass against the first commit: %+v", rec)
	}
	if len(seen) != 1 || !strings.Contains(seen[0], "first") || strings.Contains(seen[0], "second") {
		t.Fatalf("the agent read %q, want the first commit's version.txt", seen)
	}
	work := filepath.Join(rec.Dir, "work")
	if b, err := os.ReadFile(filepath.Join(work, "version.txt")); err != nil || string(b) != "first\n" {
		t.Fatalf("the workdir's version.txt is %q (%v), want the first commit's", b, err)
	}
	if _, err := os.Stat(filepath.Join(work, "added-later.txt")); err == nil {
		t.Fatal("the workdir has a file of the second commit")
	}
}

// TestGitFixtureRunsNothing: cloning and checking out the task's
// repository runs none of the hooks or filters git's configuration
// names — not the repository's own (core.hooksPath, a post-checkout
// hook), not the ones the user's configuration would add (a hooks path,
// a template directory with hooks, a filter its .gitattributes names).
// Each writes a canary outside the workdir if it runs.
func TestGitFixtureRunsNothing(t *testing.T) {
	suite, outside := t.TempDir(), t.TempDir()
	task := filepath.Join(suite, "hostile")
	repo := filepath.Join(task, "repo")
	first := twoCommits(t, repo)
	// script writes an executable that leaves the canary label outside
	// when it runs (a filter passes its input through).
	script := func(path, label string) {
		writeFile(t, path, "#!/bin/sh\necho ran > "+filepath.Join(outside, label)+"\ncat\n")
		if err := os.Chmod(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The repository's own: hooks and a hooks path in its configuration,
	// a filter its attributes name and its configuration defines.
	script(filepath.Join(repo, ".git", "hooks", "post-checkout"), "repo-hook")
	script(filepath.Join(repo, "repo-hooks", "post-checkout"), "repo-hooks-path")
	script(filepath.Join(outside, "..", filepath.Base(outside)+"-repo-filter"), "repo-filter")
	gitIn(t, repo, "config", "core.hooksPath", filepath.Join(repo, "repo-hooks"))
	writeFile(t, filepath.Join(repo, ".gitattributes"), "*.txt filter=evil\n")
	gitIn(t, repo, "add", ".gitattributes")
	gitIn(t, repo, "commit", "--quiet", "-m", "attributes")
	gitIn(t, repo, "config", "filter.evil.smudge", outside+"-repo-filter")
	// The user's: what git would read from $HOME's configuration.
	home := t.TempDir()
	script(filepath.Join(home, "hooks", "post-checkout"), "user-hooks-path")
	script(filepath.Join(home, "template", "hooks", "post-checkout"), "user-template-hook")
	script(filepath.Join(home, "filter"), "user-filter")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = "+filepath.Join(home, "hooks")+
		"\n[init]\n\ttemplateDir = "+filepath.Join(home, "template")+
		"\n[filter \"evil\"]\n\tsmudge = "+filepath.Join(home, "filter")+"\n")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))

	for _, commit := range []string{"", first} {
		hostile := repoTask(t, task, `instruction = "nothing"
commit = "`+commit+`"
check = "test -f version.txt"
`)
		r := eval.NewRunner(saysDone, eval.WithAgentOptions(harness.WithDataDir(t.TempDir())),
			eval.WithCommandEnv(os.Environ()), eval.WithUnconfinedChecks(true))
		rec := runDirect(t, r, hostile)
		if !rec.Pass {
			t.Fatalf("commit %q: the run did not pass: %+v", commit, rec)
		}
		ran, err := os.ReadDir(outside)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ran {
			t.Errorf("commit %q: preparing the workdir ran %s", commit, e.Name())
			os.Remove(filepath.Join(outside, e.Name()))
		}
	}
}

// TestSandboxRefusals: a run counts the calls a boundary of the harness
// stopped — a file outside the workdir, a file inside .git, a hook a
// command planted and the git guard removed — and not the calls that
// merely failed.
func TestSandboxRefusals(t *testing.T) {
	suite, outside := t.TempDir(), t.TempDir()
	task := filepath.Join(suite, "refusals")
	twoCommits(t, filepath.Join(task, "repo"))
	boundaries := repoTask(t, task, `instruction = "Try the boundaries."
check = "test ! -e .git/hooks/pre-commit && test ! -e .git/evil"
`)
	escaped := filepath.Join(outside, "escaped.txt")
	try := func(context.Context, *eval.Task, eval.Config) (llm.Provider, string, error) {
		return scripted.New(
			scripted.Turn{Calls: scripted.Calls(
				scripted.Call("write_file", map[string]any{"path": escaped, "content": "x\n"}),
				scripted.Call("write_file", map[string]any{"path": ".git/evil", "content": "x\n"}),
				scripted.Call("read_file", map[string]any{"path": "missing.txt"}),
				scripted.Call("bash", map[string]any{"command": "printf '#!/bin/sh\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"}),
				scripted.Call("read_file", map[string]any{"path": "version.txt"}),
			)},
			scripted.Turn{Text: "Done."}), "m", nil
	}
	r := eval.NewRunner(try, eval.WithAgentOptions(harness.WithDataDir(t.TempDir()), harness.WithEnv(os.Environ())),
		eval.WithCommandEnv(os.Environ()), eval.WithUnconfinedChecks(true))
	rec := runDirect(t, r, boundaries)
	if rec.ToolCalls != 5 || rec.ToolErrors != 4 || rec.SandboxRefusals != 3 {
		t.Errorf("%d calls, %d errors, %d sandbox refusals; want 5, 4 (3 refusals and a missing file) and 3",
			rec.ToolCalls, rec.ToolErrors, rec.SandboxRefusals)
	}
	if !rec.Pass {
		t.Errorf("a refused write or the planted hook stayed: %+v", rec)
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Error("write_file wrote outside the workdir")
	}
}
