package tool

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sandbox builds a workspace under a temp dir:
//
//	base/root/            the workspace root
//	base/root/dir/f.txt
//	base/root/in-link  -> dir              (stays inside)
//	base/root/in-file  -> dir/f.txt        (stays inside)
//	base/root/out-dir  -> base/outside     (leaves)
//	base/root/out-file -> base/outside/secret.txt
//	base/root/dangling -> base/outside/new.txt (does not exist yet)
//	base/outside/secret.txt
//	base/home/.ssh/id_rsa                  (home used for the deny list)
func sandbox(t testing.TB) (ws *Workspace, base string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "root")
	out := filepath.Join(base, "outside")
	home := filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(root, "dir"), out, filepath.Join(home, ".ssh")} {
		mustMkdir(t, d)
	}
	mustWrite(t, filepath.Join(root, "dir", "f.txt"), "hello")
	mustWrite(t, filepath.Join(out, "secret.txt"), "secret")
	mustWrite(t, filepath.Join(home, ".ssh", "id_rsa"), "key")
	links := map[string]string{
		"in-link":  "dir",
		"in-file":  filepath.Join(root, "dir", "f.txt"),
		"out-dir":  out,
		"out-file": filepath.Join(out, "secret.txt"),
		"dangling": filepath.Join(out, "new.txt"),
		"climb":    "nonexistent/../out-dir",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err = NewWorkspace(root, WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	return ws, base
}

func mustMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveInside(t *testing.T) {
	ws, base := sandbox(t)
	root := filepath.Join(base, "root")
	tests := []struct{ in, want string }{
		{"", root},
		{".", root},
		{"dir/f.txt", filepath.Join(root, "dir", "f.txt")},
		{"./dir/../dir/f.txt", filepath.Join(root, "dir", "f.txt")},
		{filepath.Join(root, "dir"), filepath.Join(root, "dir")},
		{"in-link/f.txt", filepath.Join(root, "dir", "f.txt")},
		{"in-file", filepath.Join(root, "dir", "f.txt")},
		{"new/sub/file.go", filepath.Join(root, "new", "sub", "file.go")},
		{"in-link/new/file.go", filepath.Join(root, "dir", "new", "file.go")},
		{"dir/f.txt/under-a-file", filepath.Join(root, "dir", "f.txt", "under-a-file")},
	}
	for _, tt := range tests {
		got, err := ws.Resolve(tt.in)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResolveOutside(t *testing.T) {
	ws, base := sandbox(t)
	tests := []string{
		"..",
		"../outside/secret.txt",
		"dir/../../outside",
		"/etc/passwd",
		filepath.Join(base, "outside", "secret.txt"),
		"out-dir",                  // symlinked directory
		"out-dir/secret.txt",       // file through a symlinked directory
		"out-file",                 // symlinked file
		"out-dir/new-file.txt",     // new file under a symlinked directory
		"out-dir/new/deep/file.go", // new directories under it
		"dangling",                 // dangling link: would create outside
		"climb",                    // link whose target climbs back to a link out
		"climb/secret.txt",
	}
	for _, in := range tests {
		got, err := ws.Resolve(in)
		if err == nil {
			t.Errorf("Resolve(%q) = %q, want an error", in, got)
			continue
		}
		if !strings.Contains(err.Error(), "outside the workspace") {
			t.Errorf("Resolve(%q) error %q does not say it is outside the workspace", in, err)
		}
	}
}

func TestResolveDenyList(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	mustMkdir(t, filepath.Join(home, ".ssh"))
	mustMkdir(t, filepath.Join(home, "project"))
	mustWrite(t, filepath.Join(home, ".ssh", "id_rsa"), "key")
	mustWrite(t, filepath.Join(home, ".netrc"), "machine x")
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "project", "keys")); err != nil {
		t.Fatal(err)
	}
	// The root contains home: the deny list still applies.
	ws, err := NewWorkspace(base, WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		"home/.ssh", "home/.ssh/id_rsa", "home/.netrc", "home/.aws/credentials",
		"home/.gnupg", "home/.kube/config", "home/project/keys/id_rsa",
		filepath.Join(home, ".ssh", "id_rsa"), "home/project/../.ssh/new",
	} {
		if got, err := ws.Resolve(in); err == nil {
			t.Errorf("Resolve(%q) = %q, want the deny list to refuse it", in, got)
		} else if !strings.Contains(err.Error(), "off limits") {
			t.Errorf("Resolve(%q) error %q does not name the deny list", in, err)
		}
	}
	for _, in := range []string{"home/project", "home/.sshx", "home/.bashrc"} {
		if _, err := ws.Resolve(in); err != nil {
			t.Errorf("Resolve(%q): %v", in, err)
		}
	}
	if !ws.Denied(filepath.Join(home, ".ssh", "id_rsa")) || !ws.Denied(filepath.Join(home, ".aws")) || ws.Denied(filepath.Join(home, "project")) {
		t.Error("Denied disagrees with the deny list")
	}
}

func TestResolveDeniedThroughLinkedSSHDir(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	real := filepath.Join(base, "root", "dotfiles", "ssh")
	mustMkdir(t, real)
	mustMkdir(t, home)
	if err := os.Symlink(real, filepath.Join(home, ".ssh")); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(filepath.Join(base, "root"), WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ws.Resolve("dotfiles/ssh/id_rsa"); err == nil {
		t.Errorf("Resolve = %q, want the target of ~/.ssh refused", got)
	}
}

func TestResolveSymlinkLoop(t *testing.T) {
	ws, base := sandbox(t)
	root := filepath.Join(base, "root")
	if err := os.Symlink("loop-b", filepath.Join(root, "loop-a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop-a", filepath.Join(root, "loop-b")); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Resolve("loop-a/x"); err == nil {
		t.Error("Resolve of a symlink loop succeeded")
	}
}

func TestNewWorkspace(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mustMkdir(t, filepath.Join(base, "real"))
	if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(filepath.Join(base, "link"), WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ws.Root(), filepath.Join(base, "real"); got != want {
		t.Errorf("Root() = %q, want %q", got, want)
	}
	// An absolute path through the unresolved root spelling is inside.
	if _, err := ws.Resolve(filepath.Join(base, "link", "x.go")); err != nil {
		t.Errorf("Resolve through the root's link: %v", err)
	}
	mustWrite(t, filepath.Join(base, "file"), "")
	if _, err := NewWorkspace(filepath.Join(base, "file")); err == nil {
		t.Error("NewWorkspace on a file succeeded")
	}
	if _, err := NewWorkspace(filepath.Join(base, "missing")); err == nil {
		t.Error("NewWorkspace on a missing directory succeeded")
	}
}

func TestRel(t *testing.T) {
	ws, base := sandbox(t)
	root := filepath.Join(base, "root")
	tests := []struct{ in, want string }{
		{root, "."},
		{filepath.Join(root, "dir", "f.txt"), filepath.Join("dir", "f.txt")},
		{filepath.Join(base, "outside"), filepath.Join(base, "outside")},
		{base + "/rootx", base + "/rootx"},
		{"already/relative", "already/relative"},
	}
	for _, tt := range tests {
		if got := ws.Rel(tt.in); got != tt.want {
			t.Errorf("Rel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzResolve checks the sandbox's one promise: whatever the input, a path
// Resolve accepts is inside the root, and so is wherever it really leads.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"", "a", "../x", "/etc/passwd", "dir/../../outside", "out-dir/x",
		"in-link/../out-file", "climb/x", "dangling", "./././dir//f.txt",
	} {
		f.Add(s)
	}
	ws, base := sandbox(f)
	root := ws.Root()
	f.Fuzz(func(t *testing.T, path string) {
		got, err := ws.Resolve(path)
		if err != nil {
			return
		}
		if !within(root, got) {
			t.Fatalf("Resolve(%q) = %q, outside %q", path, got, root)
		}
		// Follow whatever exists of the result: it must not lead out.
		real, err := resolveLinks(got)
		if err != nil {
			t.Fatalf("resolveLinks(%q): %v", got, err)
		}
		if real != got {
			t.Fatalf("Resolve(%q) = %q still contains a symlink (-> %q)", path, got, real)
		}
		if within(filepath.Join(base, "outside"), real) || within(filepath.Join(base, "home"), real) {
			t.Fatalf("Resolve(%q) = %q leads to %q", path, got, real)
		}
	})
}

func TestReadDir(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"b.md", "a.md", "c.md"} {
		if err := os.WriteFile(filepath.Join(root, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.md"), nil, 0o644)
	os.Symlink(outside, filepath.Join(root, "out"))
	ws, err := NewWorkspace(root, WithHome(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := ws.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if err != nil || strings.Join(names, ",") != "a.md,b.md,c.md,out" {
		t.Errorf("ReadDir(.) = %v, %v", names, err)
	}
	if entries, err := ws.ReadDir("missing"); entries != nil || err != nil {
		t.Errorf("a missing directory: %v, %v", entries, err)
	}
	if _, err := ws.ReadDir("a.md"); err == nil {
		t.Error("a file listed as a directory")
	}
	if entries, err := ws.ReadDir("out"); err == nil {
		t.Errorf("listed a directory outside the workspace through a symlink: %v", entries)
	}
}
