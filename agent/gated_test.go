package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/gitguard/gitattack"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/builtin"
)

// Where there is no kernel sandbox and the user opted into plan_bash =
// "gated", Plan Mode's bash still gets every layer that needs no kernel.
// The workdir is the user's home: a hostile .git/config sets
// core.fsmonitor, ~/.ssh holds a key, another process's command line holds
// a secret and a directory outside holds a file whose name must not leak.
// What the model sees, and the disk, show none of it.
func TestGatedPlanModeBashKeepsEveryLayerThatNeedsNoKernel(t *testing.T) {
	gitattack.RequireGit(t)
	const key = "-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t-key"
	outside := t.TempDir()
	canary := filepath.Join(outside, "FSMONITOR-RAN")
	h := newHarness(t,
		bashCall("git status"),
		bashCall("ps aux"),
		bashCall("echo "+outside+"/*"),
		bashCall("printf '%s\\n' ../*/*"),
		bashCall("grep -r BEGIN ."),
		bashCall("find . -type f | xargs cat"),
		bashCall("grep -r BEGIN src"),
		scripted.Turn{Text: "done"},
	)
	write := func(rel, body string) {
		p := filepath.Join(h.dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".ssh/id_rsa", key)
	write("src/notes.txt", "BEGIN here\n")
	if err := os.WriteFile(filepath.Join(outside, "CANARY-outside-name"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("bash", "-c", `git init -q . && git config core.fsmonitor "touch `+canary+`; false"`)
	git.Dir, git.Env = h.dir, append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+h.home)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	proc := exec.Command("sh", "-c", "sleep 300 # CANARY-process-secret")
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Process.Kill(); proc.Wait() })

	h.wsHome = h.dir
	h.sbOpts = []sandbox.Option{sandbox.WithSupport(sandbox.Support{Reason: "simulated: no Landlock"})}
	h.bashOpts = []builtin.BashOption{builtin.WithUnconfinedReadOnly(true), builtin.WithBaseEnv(os.Environ())}
	ws, err := tool.NewWorkspace(h.dir, tool.WithHome(h.dir)) // as the CLI passes it
	if err != nil {
		t.Fatal(err)
	}
	eng := h.engine(agent.WithMode(planning.ModePlan), agent.WithWorkspace(ws))
	evs := drain(t, eng.Run(context.Background(), "explore"))
	res := resultsOf(evs)
	if len(res) != 7 {
		t.Fatalf("%d results, want 7:\n%s", len(res), dump(evs))
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("git status ran the repository's core.fsmonitor")
	}
	if res[0].IsError || !strings.Contains(res[0].Output, "No commits yet") {
		t.Errorf("git status: %+v", res[0])
	}
	for i, what := range []string{"ps", "a glob outside", "a glob outside", "grep -r over ~/.ssh", "a file list"} {
		if !res[i+1].IsError {
			t.Errorf("%s was not refused: %+v", what, res[i+1])
		}
	}
	if res[6].IsError || !strings.Contains(res[6].Output, "BEGIN here") {
		t.Errorf("grep -r in a directory without credentials: %+v", res[6])
	}
	for _, m := range h.messages(eng.SessionID()) {
		for _, leak := range []string{"s3cr3t-key", "CANARY-process-secret", "CANARY-outside-name"} {
			if strings.Contains(m.Content, leak) {
				t.Errorf("%s reached the model: %q", leak, m.Content)
			}
		}
	}
}

// A repository's configuration names programs that git runs without any
// option asking for them: a filter's clean program on git status,
// diff.external on git diff, a textconv program on git log -p; and files
// anywhere that git reads and shows (core.attributesFile, whose words git
// check-attr prints). Without a kernel sandbox (plan_bash = "gated")
// nothing would confine them: they are switched off.
func TestGatedPlanModeGitRunsNoDriver(t *testing.T) {
	gitattack.RequireGit(t)
	outside := t.TempDir()
	canary := filepath.Join(outside, "DRIVER-RAN")
	netrc := filepath.Join(outside, "netrc")
	if err := os.WriteFile(netrc, []byte("machine example.com login me password CANARY-netrc-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t,
		bashCall("git status --short"),
		bashCall("git diff"),
		bashCall("git log -p -1"),
		bashCall("git check-attr -a machine"),
		scripted.Turn{Text: "done"},
	)
	run := `echo one > a.txt && printf 'x\n' > b.bin && git init -q . && git add . && git -c user.name=u -c user.email=u@x commit -qm init && ` +
		`echo two >> a.txt && echo y >> b.bin && printf '*.txt filter=f\n*.bin diff=d\n' > .git/info/attributes && ` +
		`git config filter.f.clean "sh -c 'echo clean >> ` + canary + `; cat'" && ` +
		`git config diff.external "sh -c 'echo external >> ` + canary + `'" && ` +
		`git config diff.d.textconv "sh -c 'echo textconv >> ` + canary + `; cat \"\$0\"'" && ` +
		`git config core.attributesFile ` + netrc + ` && touch a.txt`
	git := exec.Command("bash", "-c", run)
	git.Dir, git.Env = h.dir, append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+h.home)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	h.sbOpts = []sandbox.Option{sandbox.WithSupport(sandbox.Support{Reason: "simulated: no Landlock"})}
	h.bashOpts = []builtin.BashOption{builtin.WithUnconfinedReadOnly(true), builtin.WithBaseEnv(os.Environ())}
	eng := h.engine(agent.WithMode(planning.ModePlan))
	evs := drain(t, eng.Run(context.Background(), "explore"))
	res := resultsOf(evs)
	if len(res) != 4 {
		t.Fatalf("%d results, want 4:\n%s", len(res), dump(evs))
	}
	if b, err := os.ReadFile(canary); err == nil {
		t.Errorf("git ran a program the repository configured:\n%s", b)
	}
	if !strings.Contains(res[0].Output, "a.txt") {
		t.Errorf("git status: %+v", res[0])
	}
	if !strings.Contains(res[2].Output, "+x") {
		t.Errorf("git log -p: %+v", res[2])
	}
	for _, m := range h.messages(eng.SessionID()) {
		if strings.Contains(m.Content, "CANARY-netrc-token") {
			t.Errorf("a file outside the workdir that the configuration names reached the model: %q", m.Content)
		}
	}
}
