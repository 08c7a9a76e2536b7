package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeAttacks are commands that try to change something. Under ReadOnly
// none may leave a trace on disk, whatever tool or trick they use.
var writeAttacks = []string{
	"echo pwned > f",
	"echo pwned >> a.txt",
	"touch new",
	"mkdir d",
	"rm -f a.txt",
	"mv a.txt b.txt",
	"ln -s a.txt l",
	"ln a.txt hard",
	"chmod 600 a.txt",
	"touch a.txt; touch -d 2001-01-01 a.txt; touch -r /etc/hostname a.txt",
	"truncate -s 0 a.txt",
	"sed -i s/alpha/pwned/ a.txt",
	"sed ':a e touch pwned' a.txt",
	"cp a.txt copy.txt",
	"uniq a.txt -- -out",
	"tee out < a.txt",
	"dd if=a.txt of=out 2>/dev/null",
	"python3 -c 'open(\"py\",\"w\").write(\"x\")'",
	"perl -e 'open(F,\">perl\")'",
	"git init -q .",
	"git init -q sub",
	"echo x > link/planted",
	"echo x > homelink/planted",
	"echo x > ~/planted",
	"echo x > /tmp/harness9-planted-$$",
	"cd /; echo x > rootfile",
	"touch \"$TMPDIR/../escape\"",
	"tail -f a.txt > /dev/null & echo started",
	"nohup sh -c 'sleep 1; touch late' >/dev/null 2>&1 &",
	"setsid sh -c 'sleep 1; touch late2' &",
	"mkfifo fifo",
	"exec 3>fd3; echo x >&3",
}

func TestReadOnlyWritesNothing(t *testing.T) {
	w := newWorld(t)
	gitInit(t, w.work)
	before := snapshot(t, w.root)
	for _, c := range writeAttacks {
		out, _ := w.run(t, ReadOnly, c)
		after := snapshot(t, w.root)
		if path, same := sameSnapshot(before, after); !same {
			t.Errorf("%q changed %s; output:\n%s", c, path, out)
			before = after
		}
	}
	// The delayed writers must not land after the calls either: their
	// processes were ended with the call.
	time.Sleep(1500 * time.Millisecond)
	if path, same := sameSnapshot(before, snapshot(t, w.root)); !same {
		t.Errorf("a background process changed %s after its call returned", path)
	}
	if _, err := os.Stat("/tmp/harness9-planted-" + fmt.Sprint(os.Getpid())); err == nil {
		t.Error("a read-only command wrote to /tmp")
	}
}

// gitInit makes dir a repository whose configuration is hostile: every
// hook git could run would write a marker outside the workdir.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed (apt-get install git)")
	}
	marker := filepath.Join(filepath.Dir(dir), "outside", "pwned-git")
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", ".")
	run("-c", "user.name=t", "-c", "user.email=t@t", "add", "a.txt")
	run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
	hostile := fmt.Sprintf(`
[core]
	fsmonitor = "touch %[1]s-fsmonitor; false"
	pager = "touch %[1]s-pager; cat"
	hooksPath = hooks
[diff "evil"]
	textconv = "touch %[1]s-textconv; cat"
[alias]
	st = "!touch %[1]s-alias"
`, marker)
	f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(hostile)
	f.Close()
	mustWrite(t, filepath.Join(dir, ".gitattributes"), "* diff=evil\n")
	mustMkdir(t, filepath.Join(dir, "hooks"))
	mustWrite(t, filepath.Join(dir, "hooks", "post-checkout"), "#!/bin/sh\ntouch "+marker+"-hook\n")
	os.Chmod(filepath.Join(dir, "hooks", "post-checkout"), 0o755)
	mustWrite(t, filepath.Join(dir, "a.txt"), "alpha\nchanged\n")
}

func TestReadOnlyGitInHostileRepo(t *testing.T) {
	w := newWorld(t)
	gitInit(t, w.work)
	before := snapshot(t, w.root)
	for _, c := range []string{
		"git status", "git diff", "git log -p", "git log --format=%G?", "git st",
		"git branch --sort=refname evil", "git tag --sort=refname evil", "git config user.name evil",
		"git config core.fsmonitor 'touch pwn' --get", "git stash", "git checkout -b x", "git gc",
		"git -c core.fsmonitor='touch pwn' status",
	} {
		out, _ := w.run(t, ReadOnly, c)
		if path, same := sameSnapshot(before, snapshot(t, w.root)); !same {
			t.Errorf("%q changed %s; output:\n%s", c, path, out)
			before = snapshot(t, w.root)
		}
	}
	if _, err := os.Stat(filepath.Join(w.home, ".gnupg")); err == nil {
		t.Error("git created ~/.gnupg")
	}
}

// readAttacks try to read a secret outside the workdir, through links,
// `..` after links, /proc and absolute paths.
func readAttacks(w *world) []string {
	return []string{
		"cat link/secret",
		"cat link/../outside/secret",
		"cat ./link/../../outside/secret",
		"cat rootlink" + w.outside + "/secret",
		"cat rootlink/../" + strings.TrimPrefix(w.outside, "/") + "/secret",
		"cat " + w.outside + "/secret",
		"cat homelink/.ssh/id_rsa",
		"cat keylink",
		"cat ~/.ssh/id_rsa " + w.home + "/.ssh/id_rsa",
		"head " + w.data + "/harness9.db",
		"cat [!x]ink/secret",
		"printf '%s\\0' " + w.outside + "/secret | wc --files0-from=- ; printf '%s\\0' link/secret | sort --files0-from=- ",
		"diff -r link . ",
		"grep -r S3CRET " + w.root,
		"find / -name id_rsa -exec cat {} + 2>/dev/null",
		fmt.Sprintf("cat /proc/%d/environ /proc/%d/cmdline", os.Getpid(), os.Getpid()),
		"cat /proc/$PPID/environ /proc/1/environ",
		"tar cf - -C " + w.home + " . 2>/dev/null | strings",
	}
}

func TestReadOnlyReadsOnlyTheWorkdir(t *testing.T) {
	t.Setenv("HARNESS9_TEST_SECRET", w0secret)
	w := newWorld(t)
	for _, c := range readAttacks(w) {
		out, _ := w.run(t, ReadOnly, c)
		if strings.Contains(out, w.secret) || strings.Contains(out, w0secret) {
			t.Errorf("%q read a secret:\n%s", c, out)
		}
	}
}

// w0secret is put in the test process's environment under a secret-looking
// name (so the command's own environment does not have it): a child
// reading its parent's environment through /proc would find it.
const w0secret = "ENV-S3CRET-value"

func TestWorkspaceWriteKeepsSecretsAndOutside(t *testing.T) {
	t.Setenv("HARNESS9_TEST_SECRET", w0secret)
	w := newWorld(t)
	for _, c := range readAttacks(w) {
		if strings.Contains(c, "outside/secret") || strings.Contains(c, "link/secret") || strings.Contains(c, "[!x]ink") || strings.Contains(c, "diff -r") || strings.Contains(c, "grep -r") || strings.Contains(c, "find /") {
			continue // WorkspaceWrite may read outside the workdir; only the deny list is closed
		}
		out, _ := w.run(t, WorkspaceWrite, c)
		if strings.Contains(out, w.secret) || strings.Contains(out, w0secret) {
			t.Errorf("%q read a secret:\n%s", c, out)
		}
	}
	out, err := w.run(t, WorkspaceWrite, "echo made > made.txt && cat made.txt && mkdir -p sub/dir && mv made.txt sub/dir/ && ls sub/dir")
	if err != nil || !strings.Contains(out, "made.txt") {
		t.Fatalf("writing the workdir failed: %v\n%s", err, out)
	}
	before := snapshot(t, w.root)
	for _, c := range []string{
		"echo x > " + w.outside + "/planted", "echo x > link/planted", "echo x > ~/planted",
		"echo x > " + w.home + "/planted", "touch " + w.data + "/planted", "rm -f " + w.outside + "/secret",
		"echo x > homelink/.ssh/authorized_keys", "cat /dev/sda 2>&1 | head -c 10; ls /dev",
	} {
		out, _ := w.run(t, WorkspaceWrite, c)
		if path, same := sameSnapshot(before, snapshot(t, w.root)); !same {
			t.Errorf("%q changed %s outside the workdir; output:\n%s", c, path, out)
			before = snapshot(t, w.root)
		}
	}
}

// A startup file named by BASH_ENV would run before every command, and
// SHELLOPTS/BASHOPTS would change how bash parses it.
func TestShellStartupVariablesDropped(t *testing.T) {
	w := newWorld(t)
	rc := filepath.Join(w.work, "rc")
	mustWrite(t, rc, "echo STARTUP-RAN\n")
	t.Setenv("BASH_ENV", rc)
	t.Setenv("SHELLOPTS", "xtrace")
	for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
		out, _ := w.run(t, p, "echo body")
		if strings.Contains(out, "STARTUP-RAN") || strings.Contains(out, "+ echo") {
			t.Errorf("%v: the shell ran a startup file or took options from the environment:\n%s", p, out)
		}
	}
}

// A workdir that is the home directory itself: the deny list is carved out
// of it, so its credentials stay closed while the rest is readable (and,
// under WorkspaceWrite, writable).
func TestWorkdirIsHome(t *testing.T) {
	requireLandlock(t)
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, filepath.Join(home, ".ssh"))
	mustWrite(t, filepath.Join(home, ".ssh", "id_rsa"), "HOME-KEY-s3cret")
	mustWrite(t, filepath.Join(home, "notes.txt"), "plain notes")
	sb, err := New(home, WithDeny(filepath.Join(home, ".ssh")))
	if err != nil {
		t.Fatal(err)
	}
	w := &world{sb: sb}
	for _, p := range []Policy{ReadOnly, WorkspaceWrite} {
		out, _ := w.run(t, p, "cat notes.txt; cat .ssh/id_rsa; cat ./.ssh/../.ssh/id_rsa; grep -r s3cret . ; ls -la .ssh")
		if strings.Contains(out, "s3cret") || !strings.Contains(out, "plain notes") {
			t.Errorf("%v with the workdir at home:\n%s", p, out)
		}
	}
	// Carving the deny list out of the workdir costs the right to create
	// entries directly in it (Landlock allows whole hierarchies only);
	// subdirectories and existing files stay writable.
	mustMkdir(t, filepath.Join(home, "src"))
	w.run(t, WorkspaceWrite, "echo planted >> .ssh/authorized_keys; echo made > src/made.txt; echo more >> notes.txt")
	if _, err := os.Stat(filepath.Join(home, ".ssh", "authorized_keys")); err == nil {
		t.Error("a command wrote into the denied .ssh of a home workdir")
	}
	if _, err := os.Stat(filepath.Join(home, "src", "made.txt")); err != nil {
		t.Error("a subdirectory of a home workdir is not writable")
	}
	if b, _ := os.ReadFile(filepath.Join(home, "notes.txt")); !strings.Contains(string(b), "more") {
		t.Error("an existing file of a home workdir is not writable")
	}
}
