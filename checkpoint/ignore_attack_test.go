package checkpoint_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"
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

// A shell call moves a file out of an ignored directory into the tracked
// tree (mv keeps its modification time): the tree after the call holds a
// file the tree before did not, but the call did not create it. Undo must
// not delete the only copy of the user's file.
func TestUndoKeepsAFileMovedInFromAnIgnoredPlace(t *testing.T) {
	f := setup(t)
	f.write(t, ".gitignore", "private/\n", 0o644)
	f.write(t, "private/notes.txt", "the user's notes", 0o644)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(f.dir, "private/notes.txt"), old, old); err != nil {
		t.Fatal(err)
	}

	f.rec.Begin(f.id, "tidy up")
	f.change(t, nil, true, func() {
		if err := os.Rename(filepath.Join(f.dir, "private/notes.txt"), filepath.Join(f.dir, "notes.txt")); err != nil {
			t.Fatal(err)
		}
		f.write(t, "made.txt", "made by the call", 0o644)
	})

	f.rewind(t, 1, nil)
	_, errPrivate := os.Stat(filepath.Join(f.dir, "private/notes.txt"))
	_, errMoved := os.Stat(filepath.Join(f.dir, "notes.txt"))
	if errPrivate != nil && errMoved != nil {
		t.Fatalf("undo lost the user's notes: %v; %v", errPrivate, errMoved)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt, which the call wrote, should be gone after undo: %v", err)
	}
}
