package tool

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendCreatesThenAppends(t *testing.T) {
	root := t.TempDir()
	ws, err := NewWorkspace(root, WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		created, err := ws.Append("notes/log.txt", []byte("line\n"))
		if err != nil || created != want {
			t.Fatalf("Append %d = %v, %v; want created %v", i, created, err, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes", "log.txt")); string(b) != "line\nline\n" {
		t.Errorf("log.txt = %q", b)
	}
}

func TestOpenFile(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "a.txt"), "hello")
	ws, err := NewWorkspace(root, WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	f, err := ws.OpenFile("a.txt", os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "hello" {
		t.Errorf("read %q", b)
	}
	f, err = ws.OpenFile("a.txt", os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("bye")
	f.Close()
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "bye" {
		t.Errorf("after O_TRUNC a.txt = %q", b)
	}
	// Without O_CREATE nothing is made, not even the directories.
	if _, err := ws.OpenFile("new/b.txt", os.O_WRONLY, 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenFile of a missing file = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a directory was created: %v", err)
	}
	if _, err := ws.OpenFile(".", os.O_WRONLY, 0); err == nil {
		t.Error("a directory was opened for writing")
	}
}

// Writing through OpenFile and Append keeps the workspace's promises: the
// deny list (the workspace holds the home directory), links out of the
// root, links into the deny list. Nothing denied is created, truncated or
// appended to.
func TestOpenFileAndAppendRefuseWhatWriteFileRefuses(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	tree(t, home, map[string]string{
		".ssh/id_rsa":  secret,
		"key":          "@.ssh/id_rsa",
		"sshdir":       "@.ssh",
		"out":          "@../outside",
		"outfile":      "@../outside/secret",
		"proj/ok.txt":  "",
		"proj/up":      "@../.ssh",
		"proj/absout":  "@" + filepath.Join(base, "outside", "secret"),
		"proj/newdir/": "",
	})
	tree(t, base, map[string]string{"outside/secret": secret})
	ws, err := NewWorkspace(home, WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{".ssh/id_rsa", ".ssh/authorized_keys", "key", "sshdir/id_rsa", "sshdir/new", "out/secret",
		"outfile", "proj/up/id_rsa", "proj/absout", "../outside/secret", filepath.Join(base, "outside", "new")}
	for _, p := range paths {
		if _, err := ws.Append(p, []byte("evil")); err == nil {
			t.Errorf("Append(%s) succeeded", p)
		}
		for _, flag := range []int{os.O_WRONLY | os.O_TRUNC, os.O_RDWR | os.O_CREATE, os.O_WRONLY | os.O_CREATE | os.O_EXCL} {
			if f, err := ws.OpenFile(p, flag, 0o600); err == nil {
				f.Close()
				t.Errorf("OpenFile(%s, %#x) succeeded", p, flag)
			}
		}
	}
	for _, p := range []string{filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(base, "outside", "secret")} {
		if b, _ := os.ReadFile(p); string(b) != secret {
			t.Errorf("%s was changed: %q", p, b)
		}
	}
	for _, p := range []string{filepath.Join(home, ".ssh", "authorized_keys"), filepath.Join(home, ".ssh", "new"),
		filepath.Join(base, "outside", "new")} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was created", p)
		}
	}
	if _, err := ws.Append("proj/ok.txt", []byte("fine")); err != nil {
		t.Errorf("Append inside the project: %v", err)
	}
}

func TestPreviewText(t *testing.T) {
	root := t.TempDir()
	mustWrite(t, filepath.Join(root, "a.txt"), "one\n")
	mustWrite(t, filepath.Join(root, "bin"), "a\x00b")
	ws, err := NewWorkspace(root, WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	add := func(old string, _ bool) (string, bool) { return old + "two\n", true }
	c, ok := ws.PreviewText(context.Background(), "a.txt", add)
	if !ok || c.Old != "one\n" || c.New != "one\ntwo\n" || c.Created {
		t.Fatalf("a.txt: %+v %v", c, ok)
	}
	if d := c.Diff(); !strings.Contains(d, "+two") || !strings.Contains(d, "b/a.txt") {
		t.Errorf("diff:\n%s", d)
	}
	if c, ok := ws.PreviewText(context.Background(), "new.txt", add); !ok || !c.Created || c.New != "two\n" {
		t.Errorf("new.txt: %+v %v", c, ok)
	}
	for _, p := range []string{"bin", "../x", "."} {
		if _, ok := ws.PreviewText(context.Background(), p, add); ok {
			t.Errorf("%s previewed", p)
		}
	}
	if _, ok := ws.PreviewText(context.Background(), "a.txt", func(string, bool) (string, bool) { return "", false }); ok {
		t.Error("a failing edit previewed")
	}
}
