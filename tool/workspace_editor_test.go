package tool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// fakeEditor holds buffers by absolute path and records every call.
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	calls   []string
	readErr error
	wrote   map[string]string
	writeFn func() error
}

func (e *fakeEditor) ReadTextFile(_ context.Context, path string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, "read "+path)
	if e.readErr != nil {
		return "", e.readErr
	}
	if s, ok := e.buffers[path]; ok {
		return s, nil
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

func (e *fakeEditor) WriteTextFile(_ context.Context, path, content string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, "write "+path)
	if e.writeFn != nil {
		if err := e.writeFn(); err != nil {
			return err
		}
	}
	if e.wrote == nil {
		e.wrote = map[string]string{}
	}
	e.wrote[path] = content
	return nil
}

func editorSandbox(t *testing.T) (*Workspace, *fakeEditor, string) {
	t.Helper()
	plain, base := sandbox(t)
	ed := &fakeEditor{buffers: map[string]string{}}
	ws, err := NewWorkspace(plain.Root(), WithHome(filepath.Join(base, "home")), WithEditor(ed))
	if err != nil {
		t.Fatal(err)
	}
	return ws, ed, base
}

func TestReadTextComesFromTheEditor(t *testing.T) {
	ws, ed, _ := editorSandbox(t)
	f := filepath.Join(ws.Root(), "dir", "f.txt")
	ed.buffers[f] = "unsaved"
	for _, p := range []string{"dir/f.txt", "in-link/f.txt", "in-file", f} {
		got, truncated, err := ws.ReadText(context.Background(), p, 0)
		if err != nil || truncated || string(got) != "unsaved" {
			t.Errorf("ReadText(%q) = %q, %v, %v; want the buffer", p, got, truncated, err)
		}
	}
	// The editor is asked for the resolved file, whatever the spelling.
	for _, c := range ed.calls {
		if c != "read "+f {
			t.Errorf("the editor was asked %q", c)
		}
	}
	if got, truncated, _ := ws.ReadText(context.Background(), "dir/f.txt", 3); string(got) != "uns" || !truncated {
		t.Errorf("with max 3: %q, %v", got, truncated)
	}
	// An editor that cannot read: the disk.
	ed.readErr = errors.New("no such buffer")
	if got, _, err := ws.ReadText(context.Background(), "dir/f.txt", 0); err != nil || string(got) != "hello" {
		t.Errorf("with a failing editor: %q, %v", got, err)
	}
}

// The workspace decides what may be read; the editor is never asked about
// a path outside the root, in the deny list, a special file or a binary
// file.
func TestReadTextNeverAsksTheEditorAboutForbiddenPaths(t *testing.T) {
	ws, ed, base := editorSandbox(t)
	root := ws.Root()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(root, "bin"), "a\x00b")
	if err := os.Symlink(filepath.Join(base, "home", ".ssh"), filepath.Join(root, "ssh")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"out-file", "out-dir/secret.txt", "climb/secret.txt", "../outside/secret.txt",
		filepath.Join(base, "outside", "secret.txt"), "pipe", "ssh/id_rsa", "dir"} {
		if got, _, err := ws.ReadText(context.Background(), p, 0); err == nil {
			t.Errorf("ReadText(%q) = %q, want a refusal", p, got)
		}
	}
	if got, _, err := ws.ReadText(context.Background(), "bin", 0); err != nil || string(got) != "a\x00b" {
		t.Errorf("binary file: %q, %v", got, err)
	}
	if len(ed.calls) != 0 {
		t.Fatalf("the editor was asked: %q", ed.calls)
	}
}

func TestWriteTextGoesThroughTheEditor(t *testing.T) {
	ws, ed, base := editorSandbox(t)
	root := ws.Root()
	created, err := ws.WriteText(context.Background(), "sub/new.txt", []byte("fresh"))
	if err != nil || !created {
		t.Fatalf("WriteText new: %v, created %v", err, created)
	}
	if ed.wrote[filepath.Join(root, "sub", "new.txt")] != "fresh" {
		t.Fatalf("the editor got %v", ed.wrote)
	}
	if fi, err := os.Stat(filepath.Join(root, "sub")); err != nil || !fi.IsDir() {
		t.Fatalf("the missing directory was not made: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "sub", "new.txt")); err == nil {
		t.Fatal("the workspace wrote the file itself as well as the editor")
	}
	if created, err := ws.WriteText(context.Background(), "in-file", []byte("x")); err != nil || created {
		t.Fatalf("WriteText through a link: %v, created %v", err, created)
	}
	if ed.wrote[filepath.Join(root, "dir", "f.txt")] != "x" {
		t.Fatalf("a link was not written at its target: %v", ed.wrote)
	}

	n := len(ed.calls)
	for _, p := range []string{"out-file", "dangling", "out-dir/x", "../outside/x", "dir", filepath.Join(base, "home", ".ssh", "id_rsa")} {
		if _, err := ws.WriteText(context.Background(), p, []byte("evil")); err == nil {
			t.Errorf("WriteText(%q) was allowed", p)
		}
	}
	if len(ed.calls) != n {
		t.Fatalf("the editor was asked to write forbidden paths: %q", ed.calls[n:])
	}
	if b, _ := os.ReadFile(filepath.Join(base, "outside", "secret.txt")); string(b) != "secret" {
		t.Fatalf("outside file now %q", b)
	}
}

// A client that can read but not write declines, and so do bytes that are
// not text: the workspace writes those files itself.
func TestWriteTextFallsBackToTheDisk(t *testing.T) {
	ws, ed, _ := editorSandbox(t)
	ed.writeFn = func() error { return errors.ErrUnsupported }
	if _, err := ws.WriteText(context.Background(), "a.txt", []byte("text")); err != nil {
		t.Fatal(err)
	}
	ed.writeFn = nil
	if _, err := ws.WriteText(context.Background(), "b.bin", []byte{0xff, 0xfe}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": "text", "b.bin": "\xff\xfe"} {
		if b, err := os.ReadFile(filepath.Join(ws.Root(), name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v", name, b, err)
		}
	}
	if len(ed.wrote) != 0 {
		t.Errorf("the editor wrote %v", ed.wrote)
	}
	ed.writeFn = func() error { return errors.New("buffer is read-only") }
	if _, err := ws.WriteText(context.Background(), "c.txt", []byte("x")); err == nil {
		t.Error("an editor's refusal was not reported")
	}
}

// The editor is given paths spelled under the root as the program gave
// it (a link to the project), which is how the editor knows its files.
func TestEditorPathsUseTheGivenRoot(t *testing.T) {
	plain, base := sandbox(t)
	link := filepath.Join(base, "project-link")
	if err := os.Symlink(plain.Root(), link); err != nil {
		t.Fatal(err)
	}
	ed := &fakeEditor{buffers: map[string]string{}}
	ws, err := NewWorkspace(link, WithEditor(ed))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.ReadText(context.Background(), "dir/f.txt", 0); err != nil {
		t.Fatal(err)
	}
	if len(ed.calls) != 1 || ed.calls[0] != "read "+filepath.Join(link, "dir", "f.txt") {
		t.Fatalf("editor calls %q", ed.calls)
	}
	if ws.HasEditor() == plain.HasEditor() {
		t.Fatal("HasEditor does not say which workspace has one")
	}
}

func TestKindOf(t *testing.T) {
	run := func(context.Context, struct{}) (Result, error) { return Result{}, nil }
	if k := KindOf(New("a", "", run, WithKind(KindFetch))); k != KindFetch {
		t.Errorf("WithKind: %s", k)
	}
	if k := KindOf(New("b", "", run)); k != KindOther {
		t.Errorf("no kind: %s", k)
	}
}
