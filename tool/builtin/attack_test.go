//go:build unix

package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harness9/harness9/tool"
)

const secretBytes = "SECRET-KEY-BYTES"

// callWithin runs a tool call and fails the test if it has not returned
// when ctx ends: a FIFO opened for reading blocks open(2) until a writer
// comes, which nothing can interrupt.
func callWithin(ctx context.Context, t *testing.T, tl tool.Tool, input any) tool.Result {
	t.Helper()
	done := make(chan tool.Result, 1)
	go func() { done <- call(t, tl, input) }()
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
		t.Fatalf("%s %+v hung", tl.Name(), input)
		return tool.Result{}
	}
}

// Every file tool, given a FIFO directly, through a link, or inside a tree
// it walks (also as .gitignore), returns promptly.
func TestNoFileToolHangsOnAFIFO(t *testing.T) {
	ws, root := newWS(t)
	files(t, root, map[string]string{"src/a.go": "package a // needle\n"})
	for _, p := range []string{"pipe", "src/pipe.go", ".gitignore", "src/.gitignore"} {
		if err := syscall.Mkfifo(filepath.Join(root, p), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	if err := os.Symlink("pipe", filepath.Join(root, "src", "link.go")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, c := range []struct {
		tl      tool.Tool
		input   any
		wantErr bool
	}{
		{NewReadFile(ws), ReadFileInput{Path: "pipe"}, true},
		{NewReadFile(ws), ReadFileInput{Path: "src/link.go"}, true},
		{NewEditFile(ws), EditFileInput{Path: "src/link.go", OldString: "a", NewString: "b"}, true},
		{NewWriteFile(ws), WriteFileInput{Path: "pipe", Content: "x"}, true},
		{NewSearchFiles(ws), SearchFilesInput{Pattern: "needle", Path: "pipe"}, true},
		{NewSearchFiles(ws), SearchFilesInput{Pattern: "needle", Path: "src/link.go"}, true},
		{NewSearchFiles(ws), SearchFilesInput{Pattern: "needle"}, false},
		{NewListFiles(ws), ListFilesInput{Depth: 3}, false},
		{NewGlob(ws), GlobInput{Pattern: "**/*.go"}, false},
	} {
		r := callWithin(ctx, t, c.tl, c.input)
		if r.IsError != c.wantErr {
			t.Errorf("%s %+v: IsError = %v: %s", c.tl.Name(), c.input, r.IsError, r.Output)
		}
	}
	if out := ok(t, NewSearchFiles(ws), SearchFilesInput{Pattern: "needle"}); !strings.Contains(out, "src/a.go:1") {
		t.Errorf("the regular file was not searched:\n%s", out)
	}
}

// The attacks of issue 8 against the file tools: a path whose ".." follows
// a link out, links into ~/.ssh when the workdir holds home, a .gitignore
// linked to a key. The secret's bytes never reach a result, and nothing is
// written outside.
func TestFileToolsAttackCorpus(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "ws", "home")
	root := filepath.Join(home, "proj")
	files(t, base, map[string]string{
		"outside/secret":           secretBytes,
		"outside/sub/.keep":        "",
		"ws/home/.ssh/id_rsa":      secretBytes,
		"ws/home/.aws/credentials": secretBytes,
		"ws/home/proj/secret":      "decoy",
		"ws/home/proj/main.go":     "package main\n",
	})
	links := map[string]string{
		"out":            "../../../outside/sub",
		"keys":           "../.ssh",
		"key.go":         "../.ssh/id_rsa",
		".gitignore":     "../.ssh/id_rsa",
		"sub/.gitignore": "../../../../outside/secret",
		"up":             "..",
	}
	for name, target := range links {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	// The workspace is the home directory's parent: home is inside it;
	// base/outside is not.
	ws, err := tool.NewWorkspace(filepath.Join(base, "ws"), tool.WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	p := func(s string) string { return "home/proj/" + s }
	results := []tool.Result{
		call(t, NewReadFile(ws), ReadFileInput{Path: p("out/../secret")}),
		call(t, NewReadFile(ws), ReadFileInput{Path: p("keys/id_rsa")}),
		call(t, NewReadFile(ws), ReadFileInput{Path: p("key.go")}),
		call(t, NewReadFile(ws), ReadFileInput{Path: p("up/.ssh/id_rsa")}),
		call(t, NewReadFile(ws), ReadFileInput{Path: p("../.aws/credentials")}),
		call(t, NewReadFile(ws), ReadFileInput{Path: filepath.Join(home, ".ssh", "id_rsa")}),
		call(t, NewEditFile(ws), EditFileInput{Path: p("key.go"), OldString: "SECRET", NewString: "x"}),
		call(t, NewSearchFiles(ws), SearchFilesInput{Pattern: "SECRET"}),
		call(t, NewSearchFiles(ws), SearchFilesInput{Pattern: "SECRET", Path: p("up")}),
		call(t, NewSearchFiles(ws), SearchFilesInput{Pattern: "SECRET", Path: p("keys")}),
		call(t, NewListFiles(ws), ListFilesInput{Path: "home", Depth: 5}),
		call(t, NewGlob(ws), GlobInput{Pattern: "**/*"}),
		call(t, NewGlob(ws), GlobInput{Pattern: "home/proj/keys/*"}),
		call(t, NewWriteFile(ws), WriteFileInput{Path: p("keys/authorized_keys"), Content: "attacker"}),
		call(t, NewWriteFile(ws), WriteFileInput{Path: p("out/../planted"), Content: "attacker"}),
	}
	for i, r := range results {
		if strings.Contains(r.Output, secretBytes) || strings.Contains(r.Output, "id_rsa\n") {
			t.Errorf("result %d leaks: %s", i, r.Output)
		}
	}
	for i := range 7 {
		if !results[i].IsError {
			t.Errorf("read %d was not refused: %s", i, results[i].Output)
		}
	}
	for _, path := range []string{filepath.Join(home, ".ssh", "authorized_keys"), filepath.Join(base, "outside", "planted")} {
		if _, err := os.Lstat(path); err == nil {
			t.Errorf("%s was written", path)
		}
	}
	for _, path := range []string{filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(base, "outside", "secret")} {
		if b, _ := os.ReadFile(path); string(b) != secretBytes {
			t.Errorf("%s changed: %q", path, b)
		}
	}
	// A .gitignore that is a link to a key is not an ignore file: main.go
	// is still listed.
	if out := ok(t, NewGlob(ws), GlobInput{Pattern: "home/proj/*.go"}); !strings.Contains(out, "main.go") {
		t.Errorf("glob lost main.go:\n%s", out)
	}
}
