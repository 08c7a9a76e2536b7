package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadOnlyRunsWhatPlannersNeed: the read-only sandbox must not get in
// the way of exploration.
func TestReadOnlyRunsWhatPlannersNeed(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	home, _ := os.UserHomeDir()
	w := newWorld(t, WithToolchains(home, filepath.Dir(goBin)+string(os.PathListSeparator)+os.Getenv("PATH")))
	gitInit(t, w.work)
	mustWrite(t, filepath.Join(w.work, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	mustWrite(t, filepath.Join(w.work, "main.go"), "package main\n\nfunc main() {}\n")
	cases := map[string]string{
		"git log --oneline":                    "init",
		"git status --short":                   "a.txt",
		"git diff --stat":                      "a.txt",
		"git ls-files | xargs grep -l alpha":   "a.txt",
		"find . -name '*.go' | xargs wc -l":    "main.go",
		"wc -l $(git ls-files)":                "a.txt",
		"grep -rn alpha --exclude-dir=.git .":  "a.txt",
		"awk '$1 ~ /al/' a.txt":                "alpha",
		"cat a.txt | sort | uniq -c | head -1": "alpha",
		"go version":                           "go version",
		"go list ./...":                        "example.com/m",
		"go doc fmt.Println":                   "Println",
		"echo $HOME; ls -la ~; echo x > $TMPDIR/ok && echo scratch-ok":      "scratch-ok",
		"diff <(echo a) <(echo b); echo diffed":                             "diffed",
		"git config --get user.name; git config --list | head -3; echo cfg": "cfg",
	}
	if ok, _ := ProbeNamespaces(); ok {
		// A /proc of its own: ps and friends work, showing the command only.
		cases["ps -e -o comm= | sort | tr '\\n' ' '"] = "bash ps sort tr"
		cases["sleep 5 & pgrep -c sleep"] = "1"
		cases["top -b -n1 | head -3"] = "Tasks:"
	}
	for c, want := range cases {
		out, err := w.run(t, ReadOnly, c)
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("%q under ReadOnly: err=%v, want %q in:\n%s", c, err, want, out)
		}
	}
}

// Default mode's everyday work runs inside the default limits in both
// regimes: a Go module's tests (a parallel build, test binaries that start
// processes) and a git commit.
func TestWorkspaceWriteRunsTestsAndCommits(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	// The user's own build cache (the sandbox writes GOCACHE under its cache
	// directory): a cold one would make this test compile the standard
	// library.
	var cache []Option
	if out, err := exec.Command(goBin, "env", "GOCACHE").Output(); err == nil && filepath.Base(strings.TrimSpace(string(out))) == "go-build" {
		cache = append(cache, WithCacheDir(filepath.Dir(strings.TrimSpace(string(out)))))
	}
	eachRegime(t, func(t *testing.T, opts ...Option) {
		home, _ := os.UserHomeDir()
		opts = append(opts, WithToolchains(home, filepath.Dir(goBin)+string(os.PathListSeparator)+os.Getenv("PATH")))
		w := newWorld(t, append(opts, cache...)...)
		gitInit(t, w.work)
		mustWrite(t, filepath.Join(w.work, "go.mod"), "module example.com/m\n\ngo 1.22\n")
		mustWrite(t, filepath.Join(w.work, "m.go"), "package m\n\nfunc Twice(n int) int { return 2 * n }\n")
		mustWrite(t, filepath.Join(w.work, "m_test.go"), `package m

import (
	"os/exec"
	"sync"
	"testing"
)

func TestTwice(t *testing.T) {
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = Twice(2) }()
	}
	wg.Wait()
	if out, err := exec.Command("sh", "-c", "echo child").Output(); err != nil || string(out) != "child\n" {
		t.Fatal(err, string(out))
	}
}
`)
		out, err := w.run(t, WorkspaceWrite, "GOFLAGS=-mod=mod GOPROXY=off go test -count=1 ./... && git add -A && git -c user.name=t -c user.email=t@t commit -qm tests && git log --oneline | head -1 && ps -e >/dev/null && echo ps-ok")
		if err != nil || !strings.Contains(out, "ok  \texample.com/m") || !strings.Contains(out, "tests") || !strings.Contains(out, "ps-ok") {
			t.Errorf("go test and git commit under WorkspaceWrite: %v\n%s", err, out)
		}
	})
}
