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
	for c, want := range cases {
		out, err := w.run(t, ReadOnly, c)
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("%q under ReadOnly: err=%v, want %q in:\n%s", c, err, want, out)
		}
	}
}
