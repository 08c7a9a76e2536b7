package shellgate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

// canaryWorld is a workspace beside a directory whose file names must never
// appear in what the model sees: the gate may refuse to list that
// directory, but its refusal must not list it either.
func canaryWorld(t *testing.T) (ws *tool.Workspace, root, canary string) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(tmp, "ws")
	canary = "CANARY-name-outside"
	for _, p := range []string{"ws/src/main.go", "ws/notes.md", "outside/" + canary, "outside/sub/" + canary + "2"} {
		full := filepath.Join(tmp, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(tmp, "outside"), filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	ws, err = tool.NewWorkspace(root, tool.WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	return ws, root, canary
}

// Globs expand to file names whatever the command does with them: echo,
// printf and for loops list a directory as well as ls does. Each is refused
// when it reaches outside, and no refusal names what it matched there.
func TestGlobsOutsideAreRefusedWithoutNamingTheirMatches(t *testing.T) {
	ws, _, canary := canaryWorld(t)
	for _, unconfined := range []bool{false, true} {
		opts := []Option{WithWorkspace(ws)}
		if unconfined {
			opts = append(opts, WithoutKernelSandbox())
		}
		for _, c := range []string{
			"echo ../outside/*", "echo ../*/*", "printf '%s\\n' ../outside/*", "ls ../outside/*", "cat ../outside/C*",
			"echo out/*", "echo out/*/*", "for f in ../outside/*; do echo $f; done", "for f in out/s*/*; do echo \"$f\"; done",
			"echo ~/*", "echo /*/*/" + canary[:3] + "*", "wc -l ../outside/*", "grep x out/*", "echo ../outside/[C]*",
			"head -n1 ../outside/sub/*",
		} {
			err := Check(c, opts...)
			if err == nil {
				t.Errorf("%q (unconfined %v) was allowed", c, unconfined)
				continue
			}
			if strings.Contains(err.Error(), canary) {
				t.Errorf("the refusal of %q names a file outside the workspace: %v", c, err)
			}
		}
		for _, c := range []string{"echo *", "echo src/*.go", "printf '%s\\n' *.md", "for f in src/*; do echo $f; done", "echo '../*'"} {
			if err := Check(c, opts...); err != nil {
				t.Errorf("%q (unconfined %v): %v", c, unconfined, err)
			}
		}
	}
}

// homeWorld is a workspace that is the user's home directory: ~/.ssh and
// harness9's data are inside it, on the deny list.
func homeWorld(t *testing.T) *tool.Workspace {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".ssh/id_rsa", ".harness9/harness9.db", "src/a.go", "docs/x.md", "notes.txt"} {
		full := filepath.Join(home, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tool.NewWorkspace(home, tool.WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// Without the kernel sandbox the gate also refuses what the kernel would
// have stopped: a recursive read of a directory holding ~/.ssh, process
// listings, file names made at run time. With the kernel sandbox the same
// commands pass the gate (the kernel denies the reads).
func TestWithoutKernelSandbox(t *testing.T) {
	ws := homeWorld(t)
	refused := []string{
		"grep -r key .", "grep -rn key", "grep -R key .", "grep --recursive key", "grep -d recurse key .",
		"rg key", "rg key .", "rg --files", "find .", "find", "find . -name id_rsa", "ls -R", "ls -laR .",
		"du -sh .", "tree", "diff -r --no-dereference src .", "git grep key", "git ls-files",
		"cd src && grep -r key ..", "cd src && grep -r key .", "rg key src .",
		"ps aux", "ps -ef",
		"find src -name '*.go' | xargs cat", "cat $(find src -name '*.go')", "find src -exec cat {} +",
		"git ls-files src | xargs grep key", "wc -l $(git ls-files src)",
	}
	allowed := []string{
		"grep -r key src", "grep -rn key src docs", "rg key src", "rg --files src", "find src -name '*.go'",
		"ls -R src", "ls -la", "ls", "du -sh src", "tree docs", "grep key notes.txt", "cat src/a.go", "echo *",
		"grep -r key s*", "git log --oneline", "git status",
	}
	for _, c := range refused {
		if err := Check(c, WithWorkspace(ws), WithoutKernelSandbox()); err == nil {
			t.Errorf("%q was allowed without the kernel sandbox", c)
		}
	}
	for _, c := range allowed {
		if err := Check(c, WithWorkspace(ws), WithoutKernelSandbox()); err != nil {
			t.Errorf("%q without the kernel sandbox: %v", c, err)
		}
	}
	// Confined by the kernel, these are the kernel's to stop.
	for _, c := range []string{"grep -r key .", "find . -name id_rsa", "ps aux", "find src -name '*.go' | xargs cat", "git grep key"} {
		if err := Check(c, WithWorkspace(ws)); err != nil {
			t.Errorf("%q with the kernel sandbox: %v", c, err)
		}
	}
}
