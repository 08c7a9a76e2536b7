package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	ws, root := newWS(t)
	wf := NewWriteFile(ws)

	out := ok(t, wf, WriteFileInput{Path: "deep/new/dir/f.go", Content: "package f\n\nfunc F() {}\n"})
	if want := "created deep/new/dir/f.go (23 bytes, 3 lines)"; out != want {
		t.Errorf("write = %q, want %q", out, want)
	}
	p := filepath.Join(root, "deep", "new", "dir", "f.go")
	if got := readFile(t, p); got != "package f\n\nfunc F() {}\n" {
		t.Errorf("content = %q", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode = %v, want 0644", fi.Mode().Perm())
	}

	// Overwrite keeps the mode and leaves no temp file behind.
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	if out := ok(t, wf, WriteFileInput{Path: "deep/new/dir/f.go", Content: "x"}); !strings.HasPrefix(out, "overwrote") || !strings.Contains(out, "1 byte, 1 line") {
		t.Errorf("overwrite = %q", out)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o750 {
		t.Errorf("mode after overwrite = %v, want 0750", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after an atomic write, want 1", len(entries))
	}

	// Writing through a symlink inside the workspace replaces the target,
	// not the link.
	if err := os.Symlink("deep/new/dir/f.go", filepath.Join(root, "alias.go")); err != nil {
		t.Fatal(err)
	}
	ok(t, wf, WriteFileInput{Path: "alias.go", Content: "via link"})
	if got := readFile(t, p); got != "via link" {
		t.Errorf("target after writing through the link = %q", got)
	}
	if fi, _ := os.Lstat(filepath.Join(root, "alias.go")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced by a file")
	}

	fails(t, wf, WriteFileInput{Path: "deep", Content: "x"}, "directory")
	fails(t, wf, WriteFileInput{Content: "x"}, "path is required")
	ok(t, wf, WriteFileInput{Path: "empty.txt"})
	if got := readFile(t, filepath.Join(root, "empty.txt")); got != "" {
		t.Errorf("empty write = %q", got)
	}
}

// TestWriteFileAtomic checks the property atomicity buys: a concurrent
// reader sees the old content or the new, never a mix or a short file.
func TestWriteFileAtomic(t *testing.T) {
	ws, root := newWS(t)
	a, b := strings.Repeat("a", 1<<20), strings.Repeat("b", 1<<20)
	files(t, root, map[string]string{"f.txt": a})
	wf := NewWriteFile(ws)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			content := a
			if i%2 == 0 {
				content = b
			}
			// Not ok(): t.Fatal must not be called off the test goroutine.
			raw, _ := json.Marshal(WriteFileInput{Path: "f.txt", Content: content})
			if res, err := wf.Execute(context.Background(), raw); err != nil || res.IsError {
				t.Errorf("write: %v %s", err, res.Output)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		got, err := os.ReadFile(filepath.Join(root, "f.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(got); s != a && s != b {
			t.Fatalf("reader saw a partial file of %d bytes", len(got))
		}
	}
}

// TestWriteAtomicFailureKeepsOldContent checks that a failed write leaves
// the old content in place.
func TestWriteAtomicFailureKeepsOldContent(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	ws, root := newWS(t)
	files(t, root, map[string]string{"ro/f.txt": "old"})
	dir := filepath.Join(root, "ro")
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	fails(t, NewWriteFile(ws), WriteFileInput{Path: "ro/f.txt", Content: "new"}, "cannot write")
	if got := readFile(t, filepath.Join(dir, "f.txt")); got != "old" {
		t.Errorf("content after a failed write = %q", got)
	}
}

func TestEditFile(t *testing.T) {
	ws, root := newWS(t)
	src := "package main\n\nfunc a() { x := 1 }\nfunc b() { x := 1 }\nfunc c() {}\n"
	files(t, root, map[string]string{"main.go": src})
	p := filepath.Join(root, "main.go")
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	ef := NewEditFile(ws)

	fails(t, ef, EditFileInput{Path: "main.go", OldString: "x := 1", NewString: "x := 2"},
		"occurs 2 times", "more surrounding", "replace_all")
	fails(t, ef, EditFileInput{Path: "main.go", OldString: "nope", NewString: "x"}, "not found")
	fails(t, ef, EditFileInput{Path: "main.go", OldString: "c", NewString: "c"}, "identical")
	fails(t, ef, EditFileInput{Path: "missing.go", OldString: "a", NewString: "b"}, "does not exist")
	fails(t, ef, EditFileInput{Path: "main.go", OldString: "", NewString: "b"}, "empty")
	if got := readFile(t, p); got != src {
		t.Fatalf("a refused edit changed the file: %q", got)
	}

	out := ok(t, ef, EditFileInput{Path: "main.go", OldString: "func c() {}", NewString: "func c() { return }"})
	for _, want := range []string{"edited main.go: replaced 1 occurrence", "--- a/main.go", "+++ b/main.go", "-func c() {}", "+func c() { return }", "@@"} {
		if !strings.Contains(out, want) {
			t.Errorf("edit result lacks %q:\n%s", want, out)
		}
	}
	out = ok(t, ef, EditFileInput{Path: "main.go", OldString: "x := 1", NewString: "y := 2", ReplaceAll: true})
	if !strings.Contains(out, "replaced 2 occurrences") {
		t.Errorf("replace_all result = %q", out)
	}
	want := "package main\n\nfunc a() { y := 2 }\nfunc b() { y := 2 }\nfunc c() { return }\n"
	if got := readFile(t, p); got != want {
		t.Errorf("after edits = %q, want %q", got, want)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after edit = %v, want 0600", fi.Mode().Perm())
	}

	// Empty old_string creates a missing file.
	out = ok(t, ef, EditFileInput{Path: "sub/new.txt", NewString: "hello\n"})
	if !strings.Contains(out, "created sub/new.txt") || !strings.Contains(out, "+hello") {
		t.Errorf("create via edit = %q", out)
	}
	if got := readFile(t, filepath.Join(root, "sub", "new.txt")); got != "hello\n" {
		t.Errorf("created content = %q", got)
	}
}

func TestEditFileCRLF(t *testing.T) {
	ws, root := newWS(t)
	files(t, root, map[string]string{"win.txt": "one\r\ntwo\r\nthree\r\n"})
	ok(t, NewEditFile(ws), EditFileInput{Path: "win.txt", OldString: "one\ntwo", NewString: "1\n2"})
	if got := readFile(t, filepath.Join(root, "win.txt")); got != "1\r\n2\r\nthree\r\n" {
		t.Errorf("CRLF edit = %q", got)
	}
}

func TestEditFileRefusesBinaryAndDirectory(t *testing.T) {
	ws, root := newWS(t)
	files(t, root, map[string]string{"b.bin": "a\x00b", "d/x": ""})
	fails(t, NewEditFile(ws), EditFileInput{Path: "b.bin", OldString: "a", NewString: "c"}, "binary")
	fails(t, NewEditFile(ws), EditFileInput{Path: "d", OldString: "a", NewString: "c"}, "directory")
}
