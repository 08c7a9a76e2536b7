package memory

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAddCreatesAppendsAndRemembers(t *testing.T) {
	work, home := t.TempDir(), filepath.Join(t.TempDir(), "h9")
	b := New(work, home)
	if _, ok := b.Choice(); ok {
		t.Fatal("a choice before any was made")
	}
	if err := b.Remember(Project); err != nil {
		t.Fatal(err)
	}
	if c, ok := New(work, home).Choice(); !ok || c != Project {
		t.Fatalf("Choice = %q %v", c, ok)
	}
	if c, ok := New(t.TempDir(), home).Choice(); ok {
		t.Fatalf("another project got the choice %q", c)
	}
	if err := os.WriteFile(filepath.Join(work, "AGENTS.md"), []byte("# Rules\nno newline"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(Project, "#  use   tabs "); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(work, "AGENTS.md"))
	if string(got) != "# Rules\nno newline\n- use tabs\n" {
		t.Fatalf("AGENTS.md = %q", got)
	}
	if _, err := b.Add(User, "mine"); err != nil {
		t.Fatal(err)
	}
	files := b.Files()
	if len(files) != 2 || files[0].Notes[0] != "use tabs" || files[1].Notes[0] != "mine" {
		t.Fatalf("Files = %+v", files)
	}
	if _, err := b.Add(Project, "#   "); err == nil {
		t.Fatal("an empty note was added")
	}
}

// A project AGENTS.md planted as a link outside the workdir is not
// written through.
func TestAddRefusesALinkOutside(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim.md")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(work, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := New(work, t.TempDir()).Add(Project, "x"); err == nil {
		t.Fatal("a note was written through a link outside the workdir")
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep" {
		t.Fatalf("victim = %q", got)
	}
}
