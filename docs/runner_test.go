package docs

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// docUser is the ordinary user the blocks run as when the test runs as root.
const docUser = "h9doc"

// runner holds what every page shares: who runs the blocks, a harness9
// built from this tree, and the Go caches that user may use.
type runner struct {
	repo  string
	cred  *syscall.Credential // nil: run as the test's own user
	tmp   string              // holds the shared directories below
	bin   string              // harness9 (and temporal, when installed) for every page
	goBin string              // the directory of the go command
}

func newRunner(t *testing.T, repo string) *runner {
	t.Helper()
	tmp, err := os.MkdirTemp("", "h9doc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &runner{repo: repo, tmp: tmp, bin: filepath.Join(tmp, "bin")}
	if os.Geteuid() == 0 {
		r.cred = ensureUser(t)
	}
	if err := os.Mkdir(r.bin, 0o755); err != nil {
		t.Fatal(err)
	}
	r.goBin = filepath.Join(goEnv(t, "GOROOT"), "bin")
	// With the Temporal engine: the service page starts workers.
	build := exec.Command("go", "build", "-tags", "temporal", "-o", filepath.Join(r.bin, "harness9"), "./cmd/harness9")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building harness9: %v\n%s", err, out)
	}
	// The documentation's Temporal quick starts use the temporal CLI that
	// .ci/run installs into GOPATH/bin, which another user cannot reach.
	if p := lookTool("temporal"); p != "" {
		copyFile(t, p, filepath.Join(r.bin, "temporal"))
	}
	return r
}

// lookTool finds a program on PATH or in GOPATH/bin.
func lookTool(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return ""
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "bin", name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// goEnv is the Go environment of the blocks: the test's own caches (a block
// that builds harness9 runs as the test's user, see session), the test's
// proxy, no VCS stamping (the source tree may belong to someone else).
func (r *runner) goEnv(t *testing.T) []string {
	env := []string{"GOFLAGS=-buildvcs=false", "GOTOOLCHAIN=local",
		"GOCACHE=" + goEnv(t, "GOCACHE"), "GOMODCACHE=" + goEnv(t, "GOMODCACHE")}
	if p := os.Getenv("GOPROXY"); p != "" {
		env = append(env, "GOPROXY="+p)
	}
	return env
}

// ensureUser creates the ordinary user the blocks run as, once.
func ensureUser(t *testing.T) *syscall.Credential {
	t.Helper()
	u, err := user.Lookup(docUser)
	if err != nil {
		if out, err := exec.Command("useradd", "--create-home", "--shell", "/bin/bash", docUser).CombinedOutput(); err != nil {
			t.Fatalf("useradd %s: %v\n%s", docUser, err, out)
		}
		if u, err = user.Lookup(docUser); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// session is one reader following one page: a home directory with a git
// repository, a terminal, and the shell state (exports) carried from block
// to block.
type session struct {
	r       *runner
	cred    *syscall.Credential // nil: the test's own user
	id      string
	dir     string // home, project, tmux and the block scripts live here
	home    string
	project string
	env     []string
	n       int
}

// session starts a reader's session for a page. A page that builds
// harness9 from source runs as the test's user, whose Go caches hold the
// build already (another user would compile everything again, since Go's
// cache keys name the module cache's path); every other page runs as the
// ordinary user when the test runs as root.
func (r *runner) session(t *testing.T, builds bool) *session {
	t.Helper()
	dir, err := os.MkdirTemp(r.tmp, "page-")
	if err != nil {
		t.Fatal(err)
	}
	s := &session{r: r, id: filepath.Base(dir), dir: dir, cred: r.cred,
		home: filepath.Join(dir, "home"), project: filepath.Join(dir, "home", "project")}
	if err := os.MkdirAll(s.project, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(s.project, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(s.project, "go.mod"), []byte("module example.com/project\n\ngo 1.22\n"), 0o644)
	if builds {
		s.cred = nil
	}
	model := startModel(t)
	s.env = r.goEnv(t)
	name := docUser
	if s.cred == nil {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	s.env = append(s.env,
		"HOME="+s.home, "USER="+name, "LOGNAME="+name, "SHELL=/bin/bash",
		"PATH="+strings.Join([]string{filepath.Join(s.home, "go", "bin"), r.bin, r.goBin,
			"/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"}, ":"),
		"TERM=xterm-256color", "LANG=C.UTF-8", "TMUX_TMPDIR="+dir,
		"GIT_AUTHOR_NAME=Reader", "GIT_AUTHOR_EMAIL=reader@example.com",
		"GIT_COMMITTER_NAME=Reader", "GIT_COMMITTER_EMAIL=reader@example.com",
		// A reader who followed the README's quick start has a key set.
		"OPENAI_API_KEY=sk-doctest", "OPENAI_BASE_URL="+model+"/v1", "ANTHROPIC_BASE_URL="+model,
		"H9DOC_PAGE="+s.id)
	s.handOver()
	if out, err := s.command("sh", "-c", "git init -q && git add -A && git commit -qm init").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	t.Cleanup(s.sweep)
	s.startTerminal(t)
	return s
}

// handOver gives the page's directory tree to the blocks' user.
func (s *session) handOver() {
	if s.cred == nil {
		return
	}
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Lchown(p, int(s.cred.Uid), int(s.cred.Gid))
		}
		return nil
	})
}

// command runs as the blocks' user, in the project, with the page's
// environment.
func (s *session) command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir = s.project
	c.Env = s.env
	if s.cred != nil {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return c
}

// tmux runs a tmux command on the page's own server.
func (s *session) tmux(args ...string) ([]byte, error) {
	return s.command("tmux", append([]string{"-L", "h9doc", "-f", filepath.Join(s.dir, "tmux.conf")}, args...)...).CombinedOutput()
}

// startTerminal opens the page's terminal: one interactive shell that lives
// as long as the page, as a reader's does, so that what a block starts in the
// background (a server, a worker) is still there for the next block.
func (s *session) startTerminal(t *testing.T) {
	t.Helper()
	os.WriteFile(filepath.Join(s.dir, "tmux.conf"), []byte("set -g remain-on-exit on\nset -g history-limit 20000\n"), 0o644)
	s.handOver()
	if out, err := s.tmux("new-session", "-d", "-s", "main", "-x", "200", "-y", "50", "bash --norc --noprofile -i"); err != nil {
		t.Fatalf("starting tmux: %v\n%s", err, out)
	}
}

// run runs one block in the page's terminal and fails the test unless it
// exits 0. The block runs with set -e in a subshell of the page's shell;
// its shell variables are carried back into that shell when it ends.
func (s *session) run(t *testing.T, b block) {
	t.Helper()
	s.n++
	cwd := s.project
	if b.builds() {
		cwd = s.r.repo
	}
	base := filepath.Join(s.dir, fmt.Sprintf("block%d", s.n))
	state := filepath.Join(s.dir, "state.sh")
	os.WriteFile(base+".sh", []byte(strings.Join(b.lines, "\n")+"\n"), 0o644)
	os.WriteFile(base+".run", []byte(fmt.Sprintf(`( cd %[1]q
exec 3>>%[2]q.trace; BASH_XTRACEFD=3
trap 'declare -p | grep -Ev "^declare -[-a-zA-Z]* (BASH[A-Z_]*|PWD|OLDPWD|SHLVL|_|PPID|UID|EUID|SHELLOPTS|HISTCMD|RANDOM|SRANDOM|SECONDS|LINENO|EPOCH[A-Z]*|GROUPS|FUNCNAME|DIRSTACK|PIPESTATUS|COLUMNS|LINES|PS1|PS2|PS4)=" > %[3]q' EXIT
set -e -x
. %[2]q.sh
); echo $? > %[2]q.rc; . %[3]q 2>/dev/null
`, cwd, base, state)), 0o644)
	s.handOver()
	if out, err := s.tmux("send-keys", "-t", "main", "-l", ". "+base+".run"); err != nil {
		t.Fatalf("%s: typing into tmux: %v\n%s", b, err, out)
	}
	s.tmux("send-keys", "-t", "main", "Enter")
	deadline := time.Now().Add(blockTimeout)
	tuiSeen := 0
	for {
		if _, err := os.Stat(base + ".rc"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			screen, _ := s.tmux("capture-pane", "-p", "-t", "main", "-S", "-200")
			t.Fatalf("%s: still running after %v\n%s\nscreen:\n%s", b, blockTimeout, trace(base), screen)
		}
		if s.tuiInForeground() {
			tuiSeen++
			if tuiSeen >= 3 { // on screen for a moment: quit it as a reader would
				s.tmux("send-keys", "-t", "main", "C-c")
			}
		} else {
			tuiSeen = 0
		}
		time.Sleep(300 * time.Millisecond)
	}
	rc, _ := os.ReadFile(base + ".rc")
	if code := strings.TrimSpace(string(rc)); code != "0" {
		screen, _ := s.tmux("capture-pane", "-p", "-t", "main", "-S", "-200")
		t.Fatalf("%s: exited %s\n%s\nscreen:\n%s", b, code, trace(base), bytes.TrimRight(screen, "\n"))
	}
}

func trace(base string) string {
	b, _ := os.ReadFile(base + ".trace")
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return "trace:\n" + strings.Join(lines, "\n")
}

// pageProcs lists the processes started for this page (they carry its
// H9DOC_PAGE in their environment), daemons that left the terminal included.
func (s *session) pageProcs() []int {
	marker := []byte("H9DOC_PAGE=" + s.id + "\x00")
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err == nil && bytes.Contains(env, marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// tuiInForeground tells whether a harness9 of this page holds its terminal
// in the foreground with line editing off: the TUI waiting for keys.
func (s *session) tuiInForeground() bool {
	for _, pid := range s.pageProcs() {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.TrimSpace(string(comm)) != "harness9" {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// Fields after the command name: state ppid pgrp session tty_nr tpgid.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 6 || f[2] != f[5] {
			continue
		}
		tty, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/0", pid), os.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		tty.Close()
		if err == nil && tio.Lflag&unix.ICANON == 0 {
			return true
		}
	}
	return false
}

// sweep ends whatever the page left running (servers, workers, databases)
// and its terminal.
func (s *session) sweep() {
	s.tmux("kill-server")
	for range 3 {
		pids := s.pageProcs()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
