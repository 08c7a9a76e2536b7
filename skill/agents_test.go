package skill

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harness9/harness9/tool"
)

func TestLoadAgentsMD(t *testing.T) {
	dir := t.TempDir()
	if got := LoadAgentsMD(openWS(t, dir, ""), 100); got != "" {
		t.Errorf("missing file = %q", got)
	}
	write(t, filepath.Join(dir, "AGENTS.md"), "# Project\nUse make test.\n")
	if got := LoadAgentsMD(openWS(t, dir, ""), 100); got != "# Project\nUse make test." {
		t.Errorf("small file = %q", got)
	}
	long := strings.Repeat("line of notes ünïcode\n", 100)
	write(t, filepath.Join(dir, "AGENTS.md"), long)
	got := LoadAgentsMD(openWS(t, dir, ""), 500)
	head, note, ok := strings.Cut(got, "\n\n[AGENTS.md truncated")
	if !ok {
		t.Fatalf("no truncation note:\n%s", got)
	}
	if len(head) > 500 || !strings.HasSuffix(head, "ünïcode") {
		t.Errorf("head is %d bytes, ends %q", len(head), head[len(head)-10:])
	}
	if !strings.Contains(note, "of 2400 bytes") {
		t.Errorf("note = %q", note)
	}
	if got := LoadAgentsMD(openWS(t, dir, ""), 0); strings.Contains(got, "truncated") {
		t.Error("default cap truncated a 2.4 KB file")
	}
}

func TestNearestAgentsMD(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "AGENTS.md"), "root")
	write(t, filepath.Join(root, "svc", "AGENTS.md"), "svc")
	write(t, filepath.Join(root, "svc", "api", "AGENTS.md"), "api")
	write(t, filepath.Join(root, "svc", "api", "v1", "h.go"), "")
	tests := []struct {
		path, want string
		ok         bool
	}{
		{"svc/api/v1/h.go", "svc/api/AGENTS.md", true},
		{"svc/api/h.go", "svc/api/AGENTS.md", true},
		{"svc/db/new/file.go", "svc/AGENTS.md", true}, // not yet existing
		{"main.go", "AGENTS.md", true},
		{filepath.Join(root, "svc", "x.go"), "svc/AGENTS.md", true},
		{"../elsewhere/x.go", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		file, ok := NearestAgentsMD(openWS(t, root, ""), tt.path)
		if ok != tt.ok {
			t.Errorf("%s: ok = %v", tt.path, ok)
			continue
		}
		if ok && file != filepath.Join(root, tt.want) {
			t.Errorf("%s: %s, want %s", tt.path, file, tt.want)
		}
	}
	if _, ok := NearestAgentsMD(openWS(t, t.TempDir(), ""), "a/b.go"); ok {
		t.Error("found an AGENTS.md in an empty workdir")
	}
}

func TestNestedAgentsHook(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "AGENTS.md"), "root notes")
	write(t, filepath.Join(root, "svc", "AGENTS.md"), "svc notes: run go test ./svc/...")
	write(t, filepath.Join(root, "web", "AGENTS.md"), strings.Repeat("w", 1000))
	hook := NestedAgentsHook(openWS(t, root, ""), 100)

	run := func(name, path string, isErr bool) string {
		in, _ := json.Marshal(map[string]string{"path": path})
		res := tool.Result{Output: "ok", IsError: isErr}
		hook(name, in, &res)
		return res.Output
	}
	if got := run("read_file", "main.go", false); got != "ok" {
		t.Errorf("root AGENTS.md appended: %q", got)
	}
	if got := run("read_file", "svc/a.go", true); got != "ok" {
		t.Errorf("appended to an error result: %q", got)
	}
	bashIn, _ := json.Marshal(map[string]string{"command": "cat svc/a.go"})
	bashRes := tool.Result{Output: "ok"}
	hook("bash", bashIn, &bashRes)
	if bashRes.Output != "ok" {
		t.Errorf("appended for a call without a path argument: %q", bashRes.Output)
	}
	if got := run("edit_file", "svc/a.go", false); got != "ok\n\n[AGENTS.md from svc]\nsvc notes: run go test ./svc/..." {
		t.Errorf("first svc call = %q", got)
	}
	if got := run("read_file", "svc/b.go", false); got != "ok" {
		t.Errorf("svc notes shown twice: %q", got)
	}
	got := run("write_file", "web/new/page.tsx", false)
	if !strings.HasPrefix(got, "ok\n\n[AGENTS.md from web]\nwww") || !strings.Contains(got, "truncated") {
		t.Errorf("web call = %q", got)
	}

	// Concurrent calls (read-only batches run in parallel) show it once.
	write(t, filepath.Join(root, "lib", "AGENTS.md"), "lib notes")
	var wg sync.WaitGroup
	var mu sync.Mutex
	shown := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if strings.Contains(run("read_file", "lib/x.go", false), "lib notes") {
				mu.Lock()
				shown++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if shown != 1 {
		t.Errorf("lib notes shown %d times, want 1", shown)
	}
}

func TestNestedAgentsHookSymlinkedWorkdir(t *testing.T) {
	real := t.TempDir()
	write(t, filepath.Join(real, "svc", "AGENTS.md"), "svc notes")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	hook := NestedAgentsHook(openWS(t, link, ""), 0)
	res := tool.Result{Output: "ok"}
	// The tool reports the resolved path; the hook was given the link.
	in, _ := json.Marshal(map[string]string{"path": filepath.Join(real, "svc", "a.go")})
	hook("read_file", in, &res)
	if !strings.Contains(res.Output, "[AGENTS.md from svc]") {
		t.Errorf("output = %q", res.Output)
	}
}

// openWS opens dir as the project workspace, with home's deny list when
// home is not "" (as the CLI passes the user's home directory).
func openWS(t *testing.T, dir, home string) *tool.Workspace {
	t.Helper()
	ws, err := tool.NewWorkspace(dir, tool.WithHome(home))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
