package slashcmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/harness9/harness9/tool"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestExpand(t *testing.T) {
	c := Command{Body: "Fix issue #$1 ($2) in $3. All: $ARGUMENTS. Cost: $5 and $$HOME"}
	got := c.Expand(`42 "the login page" 'src/a b.go'`)
	want := `Fix issue #42 (the login page) in src/a b.go. All: 42 "the login page" 'src/a b.go'. Cost:  and $$HOME`
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := (Command{Body: "Summarise the repo."}).Expand("briefly"); got != "Summarise the repo.\n\nARGUMENTS: briefly" {
		t.Errorf("arguments of a template without placeholders: %q", got)
	}
	if got := (Command{Body: "Summarise the repo."}).Expand(""); got != "Summarise the repo." {
		t.Errorf("no arguments: %q", got)
	}
}

func TestSplitArgs(t *testing.T) {
	for in, want := range map[string][]string{
		`a  b`:             {"a", "b"},
		`"a b" c`:          {"a b", "c"},
		`'it''s' x`:        {"its", "x"},
		`a\ b "q\"x" 'n\'`: {"a b", `q"x`, `n\`},
		`""`:               {""},
		`"open quote`:      {"open quote"},
		``:                 nil,
	} {
		if got := SplitArgs(in); !slices.Equal(got, want) {
			t.Errorf("SplitArgs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDiscover(t *testing.T) {
	wd, home := t.TempDir(), t.TempDir()
	proj := filepath.Join(wd, ".harness9", "commands")
	write(t, filepath.Join(proj, "review.md"), "---\ndescription: Review  a PR\nargument-hint: <n>\nmodel: scripted/x\nallowed-tools: read_file, bash(git log --format=%h,%s:*)\n---\nReview #$1\n")
	write(t, filepath.Join(proj, "plain.md"), "Just a prompt about $ARGUMENTS\n")
	write(t, filepath.Join(proj, "help.md"), "a built-in name\n")
	write(t, filepath.Join(proj, "deploy.md"), "project's deploy\n")
	write(t, filepath.Join(proj, "bad.md"), "---\nallowed-tools: \"bash(\"\n---\nx\n")
	write(t, filepath.Join(proj, "empty.md"), "---\ndescription: nothing\n---\n")
	write(t, filepath.Join(proj, "notes.txt"), "not a command")
	write(t, filepath.Join(home, "commands", "deploy.md"), "the user's deploy\n")

	cmds, errs := Discover(openWS(t, wd), home, []string{"/help", "/exit"})
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "deploy,plain,review" {
		t.Fatalf("commands %v (errors %v)", names, errs)
	}
	if len(errs) != 3 {
		t.Errorf("errors %v, want bad.md, empty.md and help.md", errs)
	}
	if d := Find(cmds, "/deploy"); d.Source != SourceUser || d.Body != "the user's deploy" {
		t.Errorf("deploy = %+v, want the user's", d)
	}
	r := Find(cmds, "review")
	if r.Description != "Review a PR" || r.ArgumentHint != "<n>" || r.Model != "scripted/x" ||
		!slices.Equal(r.AllowedTools, []string{"read_file", "bash(git log --format=%h,%s:*)"}) || r.Source != SourceProject {
		t.Errorf("review = %+v", r)
	}
}

// A project's commands are read beneath the workdir: a commands folder
// linking out of it, or a FIFO, is not read and does not hang discovery.
func TestDiscoverStaysInTheWorkdir(t *testing.T) {
	wd, outside := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "stolen.md"), "outside text")
	if err := os.MkdirAll(filepath.Join(wd, ".harness9"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(wd, ".harness9", "commands")); err != nil {
		t.Fatal(err)
	}
	cmds, _ := Discover(openWS(t, wd), "", nil)
	if len(cmds) != 0 {
		t.Fatalf("read commands through a link out of the workdir: %+v", cmds)
	}
	wd2 := t.TempDir()
	dir := filepath.Join(wd2, ".harness9", "commands")
	write(t, filepath.Join(dir, "ok.md"), "fine")
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds, errs := Discover(openWS(t, wd2), "", nil)
	if len(cmds) != 1 || len(errs) != 1 {
		t.Fatalf("commands %+v errors %v", cmds, errs)
	}
}

func TestMatch(t *testing.T) {
	cmds := []Command{{Name: "fix", Body: "x"}}
	if c, args := Match(cmds, "/fix  12 now "); c == nil || args != "12 now" {
		t.Errorf("Match = %v %q", c, args)
	}
	if c, args := Match(cmds, "/fix\nsecond line"); c == nil || args != "second line" {
		t.Errorf("Match with a newline = %v %q", c, args)
	}
	for _, line := range []string{"/etc/hosts is wrong", "fix it", "/fixes", "/unknown x"} {
		if c, _ := Match(cmds, line); c != nil {
			t.Errorf("%q matched a command", line)
		}
	}
}

func openWS(t *testing.T, dir string) *tool.Workspace {
	t.Helper()
	ws, err := tool.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}
