// Package checkpoint records the files a turn of the agent changes, before
// it changes them, and puts them back on request (undo, rewind).
//
// A Recorder is told when a turn begins and wraps every call of a tool that
// changes files (tool.FileChanger): Before keeps the prior state of each
// file the call names (content, or absence, and mode) the first time the
// turn touches it, and After records the hash the agent left. A call that
// may change anything in the workdir (a shell command) is covered by
// comparing the tree's (size, mtime, mode) before and after the call; the
// prior content comes from a content cache filled before the command ran.
//
// Rewind restores turns newest first, through the same tool.Workspace as
// the file tools (so a symlink planted by the model cannot send a restore
// outside the workdir), and never touches a file that is no longer as the
// agent left it unless told to overwrite it.
package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/harness9/harness9/tool"
)

// DefaultMaxFileSize is the largest file whose content a checkpoint keeps.
// A larger file is recorded as too large: undo leaves it alone and says so.
const DefaultMaxFileSize = 10 << 20

// DefaultMaxTreeFiles is the largest tree (in files, ignored ones not
// counted) a shell call is tracked in; above it, shell calls are not
// checkpointed and the Recorder says so once.
const DefaultMaxTreeFiles = 20000

// DefaultMaxTreeBytes caps the content cached for shell calls. Files
// beyond it are tracked by size and mtime only: a change to one is
// recorded as too large to restore.
const DefaultMaxTreeBytes = 256 << 20

// fileState is what a path holds: nothing, a regular file with a content
// hash, or something else (a link, a directory, a special file).
type fileState struct {
	exists bool
	hash   string // hex SHA-256 of a regular file; "symlink", "dir", "special" otherwise
}

// stateOf looks at path (relative to the root) without following a final
// symlink and hashes a regular file's content through the workspace.
func stateOf(ws *tool.Workspace, path string) (fileState, error) {
	fi, err := ws.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileState{}, nil
	}
	if err != nil {
		return fileState{}, err
	}
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return fileState{exists: true, hash: "symlink"}, nil
	case m.IsDir():
		return fileState{exists: true, hash: "dir"}, nil
	case !m.IsRegular():
		return fileState{exists: true, hash: "special"}, nil
	}
	f, _, err := ws.Open(path)
	if err != nil {
		return fileState{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fileState{}, err
	}
	return fileState{exists: true, hash: hex.EncodeToString(h.Sum(nil))}, nil
}

// hashOf is the hex SHA-256 of data.
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// slash turns a root-relative path into the stored form.
func slash(rel string) string { return filepath.ToSlash(rel) }
