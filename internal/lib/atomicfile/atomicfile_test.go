package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func openRoot(t *testing.T) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, dir
}

func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestWriteCreatesReplacesAndKeepsMode(t *testing.T) {
	r, dir := openRoot(t)
	created, err := Write(r, "a/b/f.txt", []byte("one"))
	if err != nil || !created {
		t.Fatalf("Write = %v, %v; want created", created, err)
	}
	p := filepath.Join(dir, "a", "b", "f.txt")
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != NewFilePerm {
		t.Fatalf("new file: %v %v", fi, err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	created, err = Write(r, "a/b/f.txt", []byte("two"))
	if err != nil || created {
		t.Fatalf("second Write = %v, %v", created, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	if got := entries(t, filepath.Join(dir, "a", "b")); len(got) != 1 {
		t.Errorf("temporary files left behind: %v", got)
	}
	if _, err := Write(r, "a", []byte("x")); !errors.Is(err, ErrIsDir) {
		t.Errorf("Write over a directory: %v", err)
	}
}

// A symlink at the target or on the way must not carry the write outside.
func TestWriteStaysBeneathRoot(t *testing.T) {
	r, dir := openRoot(t)
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("untouched"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "file-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "dir-link")); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(r, "file-link", []byte("new")); err != nil {
		t.Fatalf("Write over a symlink: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "file-link")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link was not replaced by a file: %v %v", fi, err)
	}
	if _, err := Write(r, "dir-link/new", []byte("x")); err == nil {
		t.Error("Write through a directory link leading out succeeded")
	}
	if _, err := Write(r, "../escape", []byte("x")); err == nil {
		t.Error("Write to ../escape succeeded")
	}
	if b, _ := os.ReadFile(victim); string(b) != "untouched" {
		t.Errorf("the file outside changed: %q", b)
	}
	if got := entries(t, outside); len(got) != 1 {
		t.Errorf("files created outside the root: %v", got)
	}
}
