package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

// newWS returns a workspace on a fresh temp dir (symlinks resolved) with no
// deny list, and its root.
func newWS(t testing.TB) (*tool.Workspace, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, err := tool.NewWorkspace(root, tool.WithHome(""))
	if err != nil {
		t.Fatal(err)
	}
	return ws, root
}

// files writes name -> content under root, creating directories.
func files(t testing.TB, root string, m map[string]string) {
	t.Helper()
	for name, content := range m {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// call runs tl with input marshalled to JSON and fails on a Go error.
func call(t testing.TB, tl tool.Tool, input any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Execute(context.Background(), raw)
	if err != nil {
		t.Fatalf("%s(%s): Go error %v", tl.Name(), raw, err)
	}
	return res
}

// ok calls tl and fails if the result is an error.
func ok(t testing.TB, tl tool.Tool, input any) string {
	t.Helper()
	res := call(t, tl, input)
	if res.IsError {
		t.Fatalf("%s: unexpected error result: %s", tl.Name(), res.Output)
	}
	return res.Output
}

// fails calls tl, fails unless the result is an error, and checks that the
// error mentions every one of wants.
func fails(t testing.TB, tl tool.Tool, input any, wants ...string) string {
	t.Helper()
	res := call(t, tl, input)
	if !res.IsError {
		t.Fatalf("%s: want an error result, got: %s", tl.Name(), res.Output)
	}
	for _, w := range wants {
		if !strings.Contains(res.Output, w) {
			t.Errorf("%s: error %q does not mention %q", tl.Name(), res.Output, w)
		}
	}
	return res.Output
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAll(t *testing.T) {
	ws, _ := newWS(t)
	want := []string{"read_file", "write_file", "edit_file", "list_files", "glob", "search_files", "bash"}
	readOnly := map[string]bool{"read_file": true, "list_files": true, "glob": true, "search_files": true}
	all := All(ws)
	if len(all) != len(want) {
		t.Fatalf("All returned %d tools, want %d", len(all), len(want))
	}
	reg := tool.NewRegistry()
	if err := reg.Register(all...); err != nil {
		t.Fatal(err)
	}
	for i, tl := range all {
		if tl.Name() != want[i] {
			t.Errorf("tool %d is %q, want %q", i, tl.Name(), want[i])
		}
		ro, isRO := tl.(tool.ReadOnly)
		if got := isRO && ro.ReadOnly(); got != readOnly[tl.Name()] {
			t.Errorf("%s: ReadOnly = %v, want %v", tl.Name(), got, readOnly[tl.Name()])
		}
		if len(tl.Description()) < 100 {
			t.Errorf("%s: description too short: %q", tl.Name(), tl.Description())
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tl.Schema(), &schema); err != nil {
			t.Fatalf("%s: schema: %v", tl.Name(), err)
		}
		if schema.Type != "object" || len(schema.Properties) == 0 {
			t.Errorf("%s: schema %s has no properties", tl.Name(), tl.Schema())
		}
		for name, prop := range schema.Properties {
			if !strings.Contains(string(prop), `"description"`) {
				t.Errorf("%s: property %s has no description", tl.Name(), name)
			}
		}
	}
}

func TestMalformedArguments(t *testing.T) {
	ws, _ := newWS(t)
	for _, tl := range All(ws) {
		res, err := tl.Execute(context.Background(), json.RawMessage(`{"path": 3, "nope": true}`))
		if err != nil {
			t.Errorf("%s: Go error %v", tl.Name(), err)
		}
		if !res.IsError || !strings.Contains(res.Output, tl.Name()) {
			t.Errorf("%s: malformed arguments gave %+v", tl.Name(), res)
		}
	}
}

func TestToolsRefusePathsOutsideWorkspace(t *testing.T) {
	ws, root := newWS(t)
	outside := t.TempDir()
	files(t, outside, map[string]string{"secret.txt": "secret\n"})
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret.txt")
	for _, c := range []struct {
		tl    tool.Tool
		input any
	}{
		{NewReadFile(ws), ReadFileInput{Path: secret}},
		{NewReadFile(ws), ReadFileInput{Path: "link/secret.txt"}},
		{NewReadFile(ws), ReadFileInput{Path: "../secret.txt"}},
		{NewWriteFile(ws), WriteFileInput{Path: "link/new.txt", Content: "x"}},
		{NewEditFile(ws), EditFileInput{Path: "link/secret.txt", OldString: "secret", NewString: "x"}},
		{NewListFiles(ws), ListFilesInput{Path: "link"}},
		{NewGlob(ws), GlobInput{Pattern: "*.txt", Path: "link"}},
		{NewGlob(ws), GlobInput{Pattern: outside + "/*.txt"}},
		{NewSearchFiles(ws), SearchFilesInput{Pattern: "secret", Path: outside}},
	} {
		fails(t, c.tl, c.input, "outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("write_file created a file outside the workspace")
	}
	if got := readFile(t, secret); got != "secret\n" {
		t.Errorf("edit_file changed a file outside the workspace: %q", got)
	}
	// Walks do not follow the link out either.
	if out := ok(t, NewSearchFiles(ws), SearchFilesInput{Pattern: "secret"}); strings.Contains(out, "secret.txt") {
		t.Errorf("search_files followed a symlink out of the workspace:\n%s", out)
	}
	if out := ok(t, NewGlob(ws), GlobInput{Pattern: "**/*.txt"}); strings.Contains(out, "secret.txt") {
		t.Errorf("glob followed a symlink out of the workspace:\n%s", out)
	}
	if out := ok(t, NewListFiles(ws), ListFilesInput{Depth: 3}); strings.Contains(out, "link") {
		t.Errorf("list_files shows a symlink out of the workspace:\n%s", out)
	}
}

func TestWalksSkipDenyList(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files(t, root, map[string]string{
		"home/.ssh/id_rsa":       "needle private key",
		"home/.aws/credentials":  "needle aws",
		"home/project/main.go":   "needle ok",
		"home/.config/app.toml":  "needle config",
		"home/.netrc":            "needle netrc",
		"home/project/.netrc":    "needle only the home one is denied",
		"home/project/.ssh/conf": "needle not the home .ssh",
	})
	ws, err := tool.NewWorkspace(root, tool.WithHome(filepath.Join(root, "home")))
	if err != nil {
		t.Fatal(err)
	}
	out := ok(t, NewSearchFiles(ws), SearchFilesInput{Pattern: "needle"})
	want := "home/.config/app.toml:1: needle config\n" +
		"home/project/.netrc:1: needle only the home one is denied\n" +
		"home/project/.ssh/conf:1: needle not the home .ssh\n" +
		"home/project/main.go:1: needle ok\n"
	if !strings.HasPrefix(out, want) || strings.Count(out, "needle") != 4 {
		t.Errorf("search_files =\n%s\nwant\n%s", out, want)
	}
	for _, out := range []string{
		ok(t, NewGlob(ws), GlobInput{Pattern: "**/*"}),
		ok(t, NewListFiles(ws), ListFilesInput{Depth: 5}),
	} {
		if strings.Contains(out, "id_rsa") || strings.Contains(out, "credentials") || strings.Contains(out, "\n    .netrc") || strings.Contains(out, "home/.netrc") {
			t.Errorf("a walk shows a denied location:\n%s", out)
		}
	}
	fails(t, NewSearchFiles(ws), SearchFilesInput{Pattern: "x", Path: "home/.ssh"}, "off limits")
}

// A file name holding a newline (or another control character) would split
// into two bogus entries in the line-per-path listings; it is shown quoted,
// and the quoted name, unquoted, reads the file.
func TestListingsQuoteNamesWithControlCharacters(t *testing.T) {
	ws, root := newWS(t)
	odd := "new\nline.txt"
	files(t, root, map[string]string{odd: "needle\n", "plain name.txt": "needle\n"})
	quoted := strconv.Quote(odd)
	for name, out := range map[string]string{
		"list_files":   ok(t, NewListFiles(ws), map[string]any{}),
		"glob":         ok(t, NewGlob(ws), map[string]any{"pattern": "*.txt"}),
		"search_files": ok(t, NewSearchFiles(ws), map[string]any{"pattern": "needle"}),
	} {
		if !strings.Contains(out, quoted) || !strings.Contains(out, "plain name.txt") {
			t.Errorf("%s output lacks %s or the plain name:\n%s", name, quoted, out)
		}
		for line := range strings.Lines(out) {
			if strings.HasPrefix(strings.TrimSpace(line), "line.txt") {
				t.Errorf("%s output has a bogus entry %q:\n%s", name, line, out)
			}
		}
	}
	unq, err := strconv.Unquote(quoted)
	if err != nil {
		t.Fatal(err)
	}
	if out := ok(t, NewReadFile(ws), map[string]any{"path": unq}); !strings.Contains(out, "needle") {
		t.Errorf("read_file of the unquoted name: %s", out)
	}
}
