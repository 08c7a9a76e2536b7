package cli_test

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness9/harness9/llm"
)

// The small things of issue 24, item 11, through the binary: a denial
// without a reason is said once; the model's instructions in submit_plan's
// result are not shown; plan headings are drawn, not written with hashes;
// counts say "1 line"; declining trust says what did not start.
func TestTUISmallThings(t *testing.T) {
	h := newHarness(t)
	writeMCP(t, h.workdir, "true", "")
	model := h.script(`{"turns": [
	  {"calls": [{"name": "bash", "input": {"command": "printf 'first\\nsecond\\n'"}}]},
	  {"text": "Counted."},
	  {"calls": [{"name": "submit_plan", "input": {"title": "Greeter", "content": "## Approach\nWrite it.", "steps": ["write g.txt"]}}]},
	  {"calls": [{"name": "write_file", "input": {"path": "g.txt", "content": "hi\n"}}]},
	  {"text": "Not written, then."}
	]}`)
	r := h.newTerm()
	r.start(120, 40, nil, "-C", h.workdir, "-m", model, "--allow", "bash")
	r.waitText("Trust this project?")
	time.Sleep(700 * time.Millisecond)
	r.keys("Escape")
	r.waitText("DEFAULT")
	if s := r.waitAll("not started"); !strings.Contains(s, "harness9 trust") {
		t.Errorf("nothing says how to trust the project later:\n%s", s)
	}
	r.send("count")
	r.waitText("Counted.")
	r.keys("BTab")
	r.waitText("PLAN MODE")
	r.send("plan a greeter")
	r.waitText("Plan ready for review")
	time.Sleep(700 * time.Millisecond)
	r.keys("2", "Enter") // approve, confirming each edit
	r.waitText("Allow write_file?")
	time.Sleep(700 * time.Millisecond)
	r.keys("3", "Enter") // deny, no reason
	r.waitText("Not written, then.")
	all := r.all()
	for _, want := range []string{"denied write_file", "exit code: 0 · first … (+1 line)", "plan submitted for your review (1 step)", "Approach"} {
		if !strings.Contains(all, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, all)
		}
	}
	for _, bad := range []string{"denied this call: the user denied", "Stop here", "## Approach", "(+1 lines)"} {
		if strings.Contains(all, bad) {
			t.Errorf("the transcript shows %q:\n%s", bad, all)
		}
	}
	var results []string
	for _, m := range h.storedMessages(t) {
		if m.Role == llm.RoleTool && m.Name == "write_file" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 1 || results[0] != "the user denied this call: no reason given" {
		t.Errorf("the model was told %q", results)
	}
}

// The demo leaves no data directory behind, its welcome says how to quit,
// and two Ctrl+C leave it from its plan review (item 12).
func TestDemoCleansUpAndQuitsOnce(t *testing.T) {
	h := newHarness(t)
	tmp := t.TempDir()
	h.env = append(h.env, "TMPDIR="+tmp)
	homes := func() []string { m, _ := filepath.Glob(filepath.Join(tmp, "harness9-demo-home-*")); return m }
	if res := h.run("", "demo", "--headless"); res.code != 0 {
		t.Fatalf("demo --headless: exit %d\n%s", res.code, res.stderr)
	}
	if left := homes(); len(left) > 0 {
		t.Errorf("demo --headless left %v", left)
	}
	r := h.newTerm()
	r.start(100, 30, nil, "demo")
	r.waitText("Plan ready for review")
	if all := r.all(); !strings.Contains(all, "Ctrl+C twice or /exit quits") {
		t.Errorf("the welcome does not say how to quit:\n%s", all)
	}
	if len(homes()) != 1 {
		t.Errorf("the running demo has %d data directories", len(homes()))
	}
	r.keys("C-c", "C-c")
	if code := r.exited(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(r.screen(), "The demo's files are in") {
		t.Errorf("no goodbye:\n%s", r.screen())
	}
	if left := homes(); len(left) > 0 {
		t.Errorf("the demo left %v", left)
	}
}

// First-run edges (item 13): a mistyped command gets a suggestion; a
// read-only home names HARNESS9_HOME; run in the home directory, no
// warning about harness9's own directories reaches the terminal, and none
// is a raw log record; --help shows --trust-project as a switch.
func TestFirstRunEdges(t *testing.T) {
	h := newHarness(t)
	if res := h.run("", "sesions", "list"); res.code != 2 || !strings.Contains(res.stderr, "did you mean sessions?") {
		t.Errorf("sesions list: exit %d\n%s", res.code, res.stderr)
	}
	help := h.run("", "--help")
	if m := regexp.MustCompile(`--trust-project +(\S+)`).FindStringSubmatch(help.stdout); m == nil || m[1] != "let" {
		t.Errorf("--help shows --trust-project taking a value:\n%s", help.stdout)
	}

	// The home directory as the workdir, with a skill, an agent and a
	// command of the user's: nothing to warn about.
	home := t.TempDir()
	for path, body := range map[string]string{
		".harness9/skills/greet/SKILL.md": "---\nname: greet\ndescription: say hi\n---\nSay hi.\n",
		".harness9/agents/helper.md":      "---\nname: helper\ndescription: helps\n---\nHelp.\n",
		".harness9/commands/thing.md":     "Do the thing.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, path), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hh := newHarness(t)
	hh.env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	model := hh.script(`{"turns": [{"text": "hello there"}, {"text": "again"}]}`)
	res := hh.run("", "run", "-C", home, "-m", model, "hi")
	if res.code != 0 || strings.Contains(res.stderr, "warning") || strings.Contains(res.stderr, "level=") {
		t.Errorf("run in the home directory: exit %d\n%s", res.code, res.stderr)
	}
	r := hh.newTerm()
	r.start(100, 30, nil, "-C", home, "-m", model)
	r.waitText("DEFAULT")
	r.send("/skills")
	s := r.waitText("greet — say hi")
	if strings.Contains(s, "level=") || strings.Contains(s, "skipped") {
		t.Errorf("the TUI shows warnings in the home directory:\n%s", s)
	}

	// A home directory harness9 cannot write: the error names the fix.
	if os.Geteuid() == 0 {
		cred := nonRootUser(t)
		base := t.TempDir()
		for _, d := range []string{filepath.Dir(base), base} {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		bin := filepath.Join(base, "harness9")
		data, err := os.ReadFile(h.binary())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, data, 0o755); err != nil {
			t.Fatal(err)
		}
		ro := filepath.Join(base, "home")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(base, "script.json")
		if err := os.WriteFile(script, []byte(`{"turns": [{"text": "x"}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "run", "-C", base, "-m", "scripted/"+script, "hi")
		cmd.Env = []string{"HOME=" + ro, "PATH=" + os.Getenv("PATH")}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), "set HARNESS9_HOME to a writable directory") {
			t.Errorf("a read-only home:\n%s", out)
		}
	}
}

// nonRootUser is an ordinary user to run the binary as (created once), or
// skips when none can be had.
func nonRootUser(t *testing.T) *syscall.Credential {
	t.Helper()
	const name = "h9tester"
	u, err := user.Lookup(name)
	if err != nil {
		if out, err := exec.Command("useradd", "-M", "-s", "/bin/sh", name).CombinedOutput(); err != nil {
			t.Skipf("cannot create a user to test as: %v %s", err, out)
		}
		if u, err = user.Lookup(name); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}
