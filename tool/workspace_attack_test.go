package tool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const secret = "SECRET-KEY-BYTES"

// tree writes name -> content under root, creating directories, and
// name -> "@target" entries as symlinks.
func tree(t *testing.T, root string, m map[string]string) {
	t.Helper()
	for name, content := range m {
		p := filepath.Join(root, name)
		mustMkdir(t, filepath.Dir(p))
		if target, ok := strings.CutPrefix(content, "@"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		mustWrite(t, p, content)
	}
}

// readAllVia opens path through ws and returns what a tool would show.
func readAllVia(ws *Workspace, path string) (string, error) {
	data, _, err := ws.ReadFile(path, 0)
	return string(data), err
}

// "link/.." climbs from where link leads, as the kernel does: cleaning the
// path as text first would read a decoy (or worse, a file the kernel would
// not reach) instead.
func TestOpenAppliesDotDotAfterSymlinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	tree(t, root, map[string]string{
		"a/b/.keep":   "",
		"a/x":         "right",
		"x":           "decoy",
		"in":          "@a/b",
		"out":         "@../outside/sub",
		"outabs":      "@" + filepath.Join(base, "outside", "sub"),
		"secret":      "decoy",
		"nest/deeper": "@../out",
	})
	tree(t, base, map[string]string{"outside/sub/.keep": "", "outside/secret": secret})
	ws, err := NewWorkspace(root, WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := readAllVia(ws, "in/../x"); err != nil || got != "right" {
		t.Errorf("in/../x = %q, %v; want the kernel's a/x", got, err)
	}
	for _, p := range []string{"out/../secret", "outabs/../secret", "nest/deeper/../secret", root + "/out/../secret"} {
		got, err := readAllVia(ws, p)
		if err == nil || strings.Contains(got, secret) || !strings.Contains(err.Error(), "outside the workspace") {
			t.Errorf("%s = %q, %v; want refused as outside", p, got, err)
		}
		if _, err := ws.WriteFile(p, []byte("x")); err == nil {
			t.Errorf("WriteFile(%s) succeeded", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(base, "outside", "secret")); string(b) != secret {
		t.Errorf("the file outside was changed: %q", b)
	}
}

// The deny list holds when the workspace contains the home directory, and
// when it is the home directory, whatever the spelling or the link.
func TestDenyListWhenWorkspaceHoldsHome(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	tree(t, home, map[string]string{
		".ssh/id_rsa":                   secret,
		".aws/credentials":              secret,
		".config/gcloud/creds.json":     secret,
		".azure/msal_token_cache.json":  secret,
		".docker/config.json":           secret,
		".harness9/sessions.db":         secret,
		".kube/config":                  secret,
		".netrc":                        secret,
		"proj/key":                      "@../.ssh/id_rsa",
		"proj/sshdir":                   "@../.ssh",
		"proj/gc":                       "@../.config/gcloud",
		"proj/ok.txt":                   "fine",
		".config/other/settings.toml":   "fine too",
		"proj/sub/climb":                "@../../proj/sshdir",
		"proj/notes/AGENTS.md":          "@../../.ssh/id_rsa",
		"proj/notes/.keep":              "",
		".ssh-not-denied/also-fine.txt": "fine",
	})
	for _, root := range []string{base, home} {
		ws, err := NewWorkspace(root, WithHome(home))
		if err != nil {
			t.Fatal(err)
		}
		prefix := ws.Rel(home)
		if prefix == "." {
			prefix = ""
		} else {
			prefix += "/"
		}
		for _, p := range []string{
			".ssh/id_rsa", ".aws/credentials", ".config/gcloud/creds.json", ".azure/msal_token_cache.json", ".docker/config.json",
			".harness9/sessions.db", ".kube/config", ".netrc", "proj/key", "proj/sshdir/id_rsa",
			"proj/gc/creds.json", "proj/../.ssh/id_rsa", "proj/sub/climb/id_rsa", "proj/notes/AGENTS.md",
			"proj/sshdir/../.ssh/id_rsa",
		} {
			got, err := readAllVia(ws, prefix+p)
			if err == nil || strings.Contains(got, secret) {
				t.Errorf("root %s: %s = %q, %v; want the deny list to refuse it", root, prefix+p, got, err)
			}
		}
		for _, p := range []string{".ssh/authorized_keys", "proj/sshdir/authorized_keys", ".aws/new/config", ".docker/x"} {
			if _, err := ws.WriteFile(prefix+p, []byte("attacker")); err == nil {
				t.Errorf("root %s: WriteFile(%s) succeeded", root, prefix+p)
			}
		}
		for _, p := range []string{"proj/ok.txt", ".config/other/settings.toml", ".ssh-not-denied/also-fine.txt"} {
			if _, err := readAllVia(ws, prefix+p); err != nil {
				t.Errorf("root %s: %s: %v", root, prefix+p, err)
			}
		}
	}
	for _, p := range []string{".ssh/authorized_keys", ".aws/new", ".docker/x"} {
		if _, err := os.Lstat(filepath.Join(home, p)); err == nil {
			t.Errorf("%s was created in the deny list", p)
		}
	}
}

// On a case-insensitive file system (macOS, Windows, an SMB share) another
// spelling of a denied location opens it: ".SSH/id_rsa", or ".ſsh/id_rsa"
// (U+017F folds to s). Here, on a case-sensitive one, those spellings are
// made real directories holding what the file system would have shown,
// and every spelling is refused.
func TestDenyListHoldsForEverySpelling(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	spellings := []string{".SSH/id_rsa", ".Ssh/ID_RSA", ".\u017fsh/id_rsa", ".\u212aube/config", ".NETRC", ".AWS/credentials"}
	files := map[string]string{".ssh/id_rsa": secret, ".kube/config": secret, ".netrc": secret, ".aws/credentials": secret}
	for _, p := range spellings {
		files[p] = secret
	}
	tree(t, home, files)
	ws, err := NewWorkspace(home, WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range spellings {
		if got, err := readAllVia(ws, p); err == nil || strings.Contains(got, secret) {
			t.Errorf("%s = %q, %v; want the deny list to refuse it", p, got, err)
		}
		if _, err := ws.WriteFile(p, []byte("attacker")); err == nil {
			t.Errorf("WriteFile(%s) succeeded", p)
		}
	}
}

// WithDenied adds the harness's data directory when it is not ~/.harness9.
func TestWithDenied(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{"data/sessions.db": secret, "src/a.go": "package a"})
	ws, err := NewWorkspace(root, WithHome(""), WithDenied(filepath.Join(root, "data")))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := readAllVia(ws, "data/sessions.db"); err == nil || strings.Contains(got, secret) {
		t.Errorf("data/sessions.db = %q, %v", got, err)
	}
	if _, err := readAllVia(ws, "src/a.go"); err != nil {
		t.Error(err)
	}
}

// A FIFO is refused before it is opened: with no writer, open(2) would
// block forever, and no timeout or Ctrl+C can end that.
func TestOpenRefusesAFIFOPromptly(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tree(t, root, map[string]string{"link": "@pipe", "dir/link": "@../pipe"})
	ws, err := NewWorkspace(root, WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan []error, 1)
	go func() {
		var errs []error
		for _, p := range []string{"pipe", "link", "dir/link", "dir/../pipe"} {
			_, _, err := ws.Open(p)
			errs = append(errs, err)
			_, err = ws.WriteFile(p, []byte("x"))
			errs = append(errs, err)
		}
		done <- errs
	}()
	select {
	case errs := <-done:
		for i, err := range errs {
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("call %d: %v, want ErrNotRegular", i, err)
			}
		}
	case <-ctx.Done():
		t.Fatal("opening a FIFO through the workspace hung")
	}
	if fi, err := os.Lstat(filepath.Join(root, "pipe")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}

// The check made after the open asks the kernel where the file is: a file
// reached in the deny list (as a link swapped in after the checks would
// reach it) is refused.
func TestCheckOpenedAsksTheKernel(t *testing.T) {
	home := t.TempDir()
	tree(t, home, map[string]string{".ssh/id_rsa": secret})
	ws, err := NewWorkspace(home, WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(home, ".ssh", "id_rsa"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := openedPath(f); !ok {
		t.Skip("no /proc/self/fd here")
	}
	if err := ws.checkOpened("x", f); err == nil || !strings.Contains(err.Error(), "off limits") {
		t.Errorf("checkOpened = %v", err)
	}
}

// FuzzOpen checks Open's promise against the kernel: whatever the path, a
// file it opens is, by the kernel's account, inside the root and outside
// the deny list, and never one of the files planted outside.
func FuzzOpen(f *testing.F) {
	for _, s := range []string{
		"", "dir/f.txt", "../outside/secret.txt", "in-link/../out-file", "out-dir/..",
		"climb/secret.txt", "in-link/../../outside/secret.txt", "/etc/passwd", "dangling",
	} {
		f.Add(s)
	}
	ws, base := sandbox(f)
	f.Fuzz(func(t *testing.T, path string) {
		file, fi, err := ws.Open(path)
		if err != nil {
			return
		}
		defer file.Close()
		if real, ok := openedPath(file); ok && (!within(ws.Root(), real) || ws.Denied(real)) {
			t.Fatalf("Open(%q) opened %s", path, real)
		}
		if fi.Mode().IsRegular() {
			b, _ := readAll(file, 64)
			if s := string(b); s == "secret" || s == "key" {
				t.Fatalf("Open(%q) read %q from outside %s", path, s, base)
			}
		}
	})
}
