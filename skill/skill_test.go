package skill

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\nlicense: MIT\n---\n%s", name, desc, body)
}

func TestDiscover(t *testing.T) {
	work, home := t.TempDir(), t.TempDir()
	proj := filepath.Join(work, ".harness9", "skills")
	user := filepath.Join(home, "skills")
	write(t, filepath.Join(proj, "pdf", "SKILL.md"), skillMD("pdf", "Fill and merge PDF forms.", "# PDF\nUse scripts/fill.py."))
	write(t, filepath.Join(proj, "pdf", "scripts", "fill.py"), "print('hi')")
	write(t, filepath.Join(proj, "review", "SKILL.md"), skillMD("review", "Project review checklist.", "project version"))
	write(t, filepath.Join(user, "review", "SKILL.md"), skillMD("review", "User review checklist.", "user version"))
	write(t, filepath.Join(user, "commit", "SKILL.md"), "\xef\xbb\xbf---\r\nname: commit\r\ndescription: >\r\n  Write commit\r\n  messages.\r\n---\r\nBody\r\n")
	// Broken ones: each skipped with an error, never a crash.
	write(t, filepath.Join(proj, "nofm", "SKILL.md"), "# just markdown\n")
	write(t, filepath.Join(proj, "badyaml", "SKILL.md"), "---\nname: [unclosed\n---\nbody")
	write(t, filepath.Join(proj, "noname", "SKILL.md"), "---\ndescription: x\n---\nbody")
	write(t, filepath.Join(proj, "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nbody")
	write(t, filepath.Join(proj, "unclosed", "SKILL.md"), "---\nname: a\ndescription: b\nbody")
	write(t, filepath.Join(proj, "badname", "SKILL.md"), skillMD("has spaces", "d", ""))
	write(t, filepath.Join(proj, "dup", "SKILL.md"), skillMD("pdf", "Another pdf.", ""))
	write(t, filepath.Join(proj, "empty-folder", "notes.txt"), "not a skill")
	write(t, filepath.Join(proj, "stray.md"), "a file, not a folder")

	skills, errs := Discover(openWS(t, work, ""), home)
	var names []string
	for _, s := range skills {
		names = append(names, s.Name+"/"+string(s.Source))
	}
	if got, want := strings.Join(names, " "), "commit/user pdf/project review/project"; got != want {
		t.Errorf("skills = %s, want %s", got, want)
	}
	if len(errs) != 7 {
		t.Errorf("got %d errors, want 7:", len(errs))
	}
	for _, want := range []string{"nofm", "badyaml", "noname", "nodesc", "unclosed", "badname", "dup"} {
		found := false
		for _, err := range errs {
			found = found || strings.Contains(err.Error(), filepath.Join(want, "SKILL.md"))
		}
		if !found {
			t.Errorf("no error names %s: %v", want, errs)
		}
	}
	byName := map[string]Skill{}
	for _, s := range skills {
		byName[s.Name] = s
	}
	if b := byName["review"].Body; b != "project version" {
		t.Errorf("review body = %q, want the project skill's", b)
	}
	if c := byName["commit"]; c.Description != "Write commit messages." || c.Body != "Body" {
		t.Errorf("commit (BOM, CRLF, folded description) = %+v", c)
	}
	if p := byName["pdf"]; p.Dir != filepath.Join(proj, "pdf") || strings.Contains(p.Body, "name:") {
		t.Errorf("pdf = %+v", p)
	}
}

func TestDiscoverMissingDirs(t *testing.T) {
	skills, errs := Discover(nil, filepath.Join(t.TempDir(), "nope"))
	if len(skills) != 0 || len(errs) != 0 {
		t.Errorf("got %v, %v; want nothing", skills, errs)
	}
	if Index(nil) != "" {
		t.Error("Index(nil) is not empty")
	}
}

func TestIndex(t *testing.T) {
	idx := Index([]Skill{{Name: "pdf", Description: "Fill PDF forms."}, {Name: "long", Description: strings.Repeat("x", 500)}})
	if !strings.HasPrefix(idx, "## Skills\n") || !strings.Contains(idx, "- pdf: Fill PDF forms.") || !strings.Contains(idx, "use_skill") {
		t.Errorf("index:\n%s", idx)
	}
	if len(idx) > 600 {
		t.Errorf("index is %d bytes; long descriptions should be clipped", len(idx))
	}
}

func call(t *testing.T, tl tool.Tool, input string) tool.Result {
	t.Helper()
	res, err := tl.Execute(context.Background(), json.RawMessage(input))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestUseSkillTool(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(work, ".harness9", "skills", "pdf")
	write(t, filepath.Join(dir, "SKILL.md"), skillMD("pdf", "PDF forms.", "Run scripts/fill.py then check reference.md."))
	write(t, filepath.Join(dir, "scripts", "fill.py"), "print('fill')")
	write(t, filepath.Join(dir, "reference.md"), "# Reference")
	write(t, filepath.Join(dir, ".hidden", "x"), "hidden")
	write(t, filepath.Join(dir, "blob.bin"), "a\x00b")
	write(t, filepath.Join(work, "secret.txt"), "secret")
	for i := range maxListedFiles + 5 {
		write(t, filepath.Join(dir, "zz-many", fmt.Sprintf("f%03d.txt", i)), "x")
	}
	skills, errs := Discover(openWS(t, work, ""), "")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	tl := NewUseSkillTool(skills)
	if tl.Name() != "use_skill" {
		t.Errorf("name = %q", tl.Name())
	}
	if ro, ok := tl.(tool.ReadOnly); !ok || !ro.ReadOnly() {
		t.Error("use_skill is not read-only")
	}
	var schema map[string]any
	if err := json.Unmarshal(tl.Schema(), &schema); err != nil || schema["required"] == nil {
		t.Errorf("schema %s: %v", tl.Schema(), err)
	}

	res := call(t, tl, `{"name":"pdf"}`)
	if res.IsError {
		t.Fatal(res.Output)
	}
	for _, want := range []string{"Run scripts/fill.py", "- reference.md", "- scripts/fill.py", "- blob.bin", "... and 8 more"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	for _, unwanted := range []string{"description:", ".hidden", "- SKILL.md"} {
		if strings.Contains(res.Output, unwanted) {
			t.Errorf("output contains %q", unwanted)
		}
	}

	if res := call(t, tl, `{"name":"pdf","file":"scripts/fill.py"}`); res.IsError || res.Output != "print('fill')" {
		t.Errorf("file read = %+v", res)
	}
	for _, bad := range []string{"../../../secret.txt", "/etc/passwd", "missing.md", "blob.bin", "scripts"} {
		if res := call(t, tl, `{"name":"pdf","file":"`+bad+`"}`); !res.IsError {
			t.Errorf("file %q: not refused: %s", bad, res.Output)
		}
	}

	res = call(t, tl, `{"name":"nope"}`)
	if !res.IsError || !strings.Contains(res.Output, "known skills: pdf") {
		t.Errorf("unknown skill = %+v", res)
	}
	if res := call(t, NewUseSkillTool(nil), `{"name":"x"}`); !res.IsError || !strings.Contains(res.Output, "no skills") {
		t.Errorf("no skills = %+v", res)
	}
	if res := call(t, tl, `{"nmae":"pdf"}`); !res.IsError {
		t.Error("misspelled field accepted")
	}
}

func TestUseSkillRefusesSymlinkEscape(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(work, "skills", "s")
	write(t, filepath.Join(dir, "SKILL.md"), skillMD("s", "d", "b"))
	write(t, filepath.Join(work, "outside.txt"), "secret")
	if err := os.Symlink(filepath.Join(work, "outside.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	skills, _ := Discover(nil, work)
	if res := call(t, NewUseSkillTool(skills), `{"name":"s","file":"link.txt"}`); !res.IsError {
		t.Errorf("symlink escape not refused: %s", res.Output)
	}
}
