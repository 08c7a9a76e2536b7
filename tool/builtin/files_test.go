package builtin

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/harness9/harness9/tool"
)

func TestFilesRespectsIgnoreAndDenyList(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	for p, body := range map[string]string{
		".gitignore":      "build/\n*.log\n",
		"main.go":         "package main",
		"pkg/a.go":        "package pkg",
		"build/out.bin":   "x",
		"debug.log":       "x",
		".git/config":     "x",
		".ssh/id_ed25519": "secret",
		"docs/guide/x.md": "x",
	} {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o644)
	os.Symlink(outside, filepath.Join(root, "linked"))
	ws, err := tool.NewWorkspace(root, tool.WithHome(home), tool.WithDenied(filepath.Join(root, ".ssh")))
	if err != nil {
		t.Fatal(err)
	}
	got, truncated, err := Files(context.Background(), ws, 0)
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	slices.Sort(got)
	want := []string{".gitignore", "docs/guide/x.md", "main.go", "pkg/a.go"}
	if !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	got, truncated, _ = Files(context.Background(), ws, 2)
	if len(got) != 2 || !truncated {
		t.Errorf("limit: %q %v", got, truncated)
	}
}
