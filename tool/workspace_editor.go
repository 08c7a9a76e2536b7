package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"unicode/utf8"
)

// Editor is the user's editor when harness9 runs inside one (the Agent
// Client Protocol's fs/read_text_file and fs/write_text_file): it holds the
// text of the files the user has open, unsaved changes included, and
// writes land in its buffers. Paths are absolute.
type Editor interface {
	ReadTextFile(ctx context.Context, path string) (string, error)
	WriteTextFile(ctx context.Context, path, content string) error
}

// WithEditor makes the workspace read and write text files through e
// (ReadText, WriteText). The workspace's own checks still decide what may
// be read or written: a path reaches the editor only once it has been
// resolved beneath the root, outside the deny list, to a regular file, and
// the editor is given that resolved path, with no symlink left in it.
func WithEditor(e Editor) WorkspaceOption {
	return func(c *workspaceConfig) { c.editor = e }
}

// HasEditor reports whether text files go through an editor (WithEditor).
func (w *Workspace) HasEditor() bool { return w.editor != nil }

// ReadText reads the text file at path like ReadFile, at most max bytes
// (no limit when max <= 0). With an editor the text is the editor's — the
// user's unsaved changes included — once the file on disk has passed the
// workspace's checks; a binary file, or one the editor cannot read, is
// read from disk.
func (w *Workspace) ReadText(ctx context.Context, path string, max int64) (data []byte, truncated bool, err error) {
	data, truncated, err = w.ReadFile(path, max)
	if err != nil || w.editor == nil || bytes.IndexByte(data, 0) >= 0 {
		return data, truncated, err
	}
	_, resolved, err := w.locate(path)
	if err != nil {
		return nil, false, err
	}
	text, err := w.editor.ReadTextFile(ctx, w.editorPath(resolved))
	if err != nil {
		return data, truncated, nil
	}
	if max > 0 && int64(len(text)) > max {
		return []byte(text[:max]), true, nil
	}
	return []byte(text), false, nil
}

// WriteText writes data to the file at path like WriteFile; with an editor
// the write goes through it, after the same checks (beneath the root, not
// denied, not a directory or special file; missing directories are
// created). Bytes that are not UTF-8 text, and writes the editor declines
// with errors.ErrUnsupported (it can read but not write), go to disk.
func (w *Workspace) WriteText(ctx context.Context, path string, data []byte) (created bool, err error) {
	if w.editor == nil || !utf8.Valid(data) {
		return w.WriteFile(path, data)
	}
	rel, err := w.prepareWrite(path, true)
	if err != nil {
		return false, err
	}
	if _, err := w.fs.Lstat(rel); errors.Is(err, fs.ErrNotExist) {
		created = true
	}
	err = w.editor.WriteTextFile(ctx, w.editorPath(filepath.Join(w.root, rel)), string(data))
	if errors.Is(err, errors.ErrUnsupported) {
		return w.WriteFile(path, data)
	}
	if err != nil {
		return false, fmt.Errorf("the editor could not write %q: %w", path, err)
	}
	return created, nil
}

// editorPath is resolved (inside the root) spelled under the root as it
// was given, which is how the editor knows the project.
func (w *Workspace) editorPath(resolved string) string {
	if w.given == "" {
		return resolved
	}
	return filepath.Join(w.given, w.rel(resolved))
}
