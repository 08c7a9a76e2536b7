package checkpoint_test

import (
	"os"
	"path/filepath"
	"testing"
)

// A shell call (or a sub-agent) rewrites .gitignore so that files it was
// hiding show up in the tree after the call: the user's ignored files, never
// touched by the call, must not look like files the call created, or undo
// deletes them.
func TestUnignoringFilesDoesNotMakeUndoDeleteThem(t *testing.T) {
	f := setup(t)
	f.write(t, ".gitignore", ".env\nprivate/\n", 0o644)
	f.write(t, "sub/.gitignore", "*.key\n", 0o644)
	f.write(t, ".env", "TOKEN=user-secret", 0o600)
	f.write(t, "private/notes.txt", "the user's notes", 0o644)
	f.write(t, "sub/id.key", "user key", 0o600)
	f.write(t, "main.go", "package main", 0o644)

	f.rec.Begin(f.id, "clean up .gitignore")
	f.change(t, nil, true, func() {
		f.write(t, ".gitignore", "# nothing ignored\n", 0o644)
		if err := os.Remove(filepath.Join(f.dir, "sub/.gitignore")); err != nil {
			t.Fatal(err)
		}
		f.write(t, "main.go", "package main // edited", 0o644)
		f.write(t, "new.go", "package main // new", 0o644)
	})

	f.rewind(t, 1, nil)
	for name, want := range map[string]string{
		".env":              "TOKEN=user-secret",
		"private/notes.txt": "the user's notes",
		"sub/id.key":        "user key",
		".gitignore":        ".env\nprivate/\n",
		"sub/.gitignore":    "*.key\n",
		"main.go":           "package main",
	} {
		got, err := os.ReadFile(filepath.Join(f.dir, name))
		if err != nil {
			t.Errorf("undo lost %s: %v", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s = %q after undo, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, "new.go")); !os.IsNotExist(err) {
		t.Errorf("new.go, which the call created, should be gone after undo: %v", err)
	}
}
