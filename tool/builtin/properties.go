package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/aymanbagabas/go-udiff"

	"github.com/harness9/harness9/tool"
)

// What the built-in tools say about themselves beyond running: what a call
// acts on (Scope, for permission rules), what the user approves (Preview),
// one line for transcripts (Summary), and that file writes stay inside the
// workspace (Contained).

// previewMax caps the content shown in a write_file preview, in bytes.
const previewMax = 4000

// previewReadMax is the largest file an edit preview reads for its diff.
const previewReadMax = 1 << 20

// Contained implements tool.Contained: every write goes through the
// Workspace, which keeps it inside the workdir and out of the deny list.
func (t *WriteFile) Contained() bool { return true }

// Contained implements tool.Contained, as for WriteFile.
func (t *EditFile) Contained() bool { return true }

// Scope implements tool.Scoped.
func (t *WriteFile) Scope(input json.RawMessage) tool.Scope { return pathScope(input) }

// Scope implements tool.Scoped.
func (t *EditFile) Scope(input json.RawMessage) tool.Scope { return pathScope(input) }

// Scope implements tool.Scoped, so deny rules can keep reads away from
// files (read_file(secrets/**)).
func (t *ReadFile) Scope(input json.RawMessage) tool.Scope { return pathScope(input) }

func pathScope(input json.RawMessage) tool.Scope {
	var in struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(input, &in)
	return tool.Scope{Path: in.Path}
}

// Preview implements tool.Previewer: the path, the size and the head of
// the content.
func (t *WriteFile) Preview(input json.RawMessage) string {
	in, _ := tool.Decode[WriteFileInput](input)
	content := in.Content
	if len(content) > previewMax {
		content = strings.ToValidUTF8(content[:previewMax], "") + fmt.Sprintf("\n[... %d more bytes]", len(in.Content)-previewMax)
	}
	return fmt.Sprintf("write %s (%s)\n%s", in.Path, plural(len(in.Content), "byte"), content)
}

// Preview implements tool.Previewer: the unified diff the edit would make,
// computed from the file as the tool would read it (through the
// Workspace, so a preview never shows a file the tool could not touch),
// or of the two strings when the file cannot be read.
func (t *EditFile) Preview(input json.RawMessage) string {
	in, _ := tool.Decode[EditFileInput](input)
	if c, ok := t.PreviewChange(context.Background(), input); ok {
		return c.Diff()
	}
	return udiff.Unified("a/"+in.Path, "b/"+in.Path, in.OldString, in.NewString)
}

// PreviewChange implements tool.ChangePreviewer: the file before and after
// the edit, when old_string is found in it. ReadText refuses a named pipe
// before opening it (it would block before the user is even asked) and
// stops at previewReadMax.
func (t *EditFile) PreviewChange(ctx context.Context, input json.RawMessage) (tool.FileChange, bool) {
	in, err := tool.Decode[EditFileInput](input)
	if err != nil || in.Path == "" {
		return tool.FileChange{}, false
	}
	b, truncated, err := t.ws.ReadText(ctx, in.Path, previewReadMax)
	if errors.Is(err, fs.ErrNotExist) && in.OldString == "" {
		return tool.FileChange{Path: in.Path, New: in.NewString, Created: true}, true
	}
	old := string(b)
	if err != nil || truncated || in.OldString == "" || !strings.Contains(old, in.OldString) {
		return tool.FileChange{}, false
	}
	n := 1
	if in.ReplaceAll {
		n = -1
	}
	return tool.FileChange{Path: in.Path, Old: old, New: strings.Replace(old, in.OldString, in.NewString, n)}, true
}

// PreviewChange implements tool.ChangePreviewer: the file now (as the
// editor holds it, when there is one) and the content that replaces it.
func (t *WriteFile) PreviewChange(ctx context.Context, input json.RawMessage) (tool.FileChange, bool) {
	in, err := tool.Decode[WriteFileInput](input)
	if err != nil || in.Path == "" {
		return tool.FileChange{}, false
	}
	return t.ws.PreviewText(ctx, in.Path, func(string, bool) (string, bool) { return in.Content, true })
}

// Summary implements tool.Summarizer: how many numbered lines were read,
// with the tool's "(showing lines a-b of n …)" span.
func (t *ReadFile) Summary(_ json.RawMessage, res tool.Result) string {
	out := strings.TrimRight(res.Output, "\n")
	n := 0
	lines := strings.Split(out, "\n")
	for _, l := range lines {
		if num, _, ok := strings.Cut(strings.TrimLeft(l, " "), "\t"); ok && num != "" && strings.Trim(num, "0123456789") == "" {
			n++
		}
	}
	if res.IsError || n == 0 {
		return firstAndCount(out)
	}
	s := "read " + plural(n, "line")
	if last := lines[len(lines)-1]; strings.HasPrefix(last, "(showing ") {
		if span, _, ok := strings.Cut(strings.TrimPrefix(last, "(showing "), ";"); ok {
			s += " (" + span + ")"
		}
	}
	return s
}

// Summary implements tool.Summarizer: the tool's own count line, then the
// first match.
func (t *SearchFiles) Summary(_ json.RawMessage, res tool.Result) string {
	out := strings.TrimRight(res.Output, "\n")
	lines := strings.Split(out, "\n")
	last := lines[len(lines)-1]
	if !res.IsError && len(lines) > 1 && strings.HasPrefix(last, "(") {
		return fmt.Sprintf("%s · %s", strings.Trim(last, "()"), firstAndCount(strings.Join(lines[:len(lines)-1], "\n")))
	}
	return firstAndCount(out)
}

// firstAndCount is "first line … (+n lines)", or "(no output)".
func firstAndCount(out string) string {
	out = strings.TrimSpace(out)
	if out == "" {
		return "(no output)"
	}
	first, rest, more := strings.Cut(out, "\n")
	if !more {
		return first
	}
	n := strings.Count(rest, "\n") + 1
	if n == 1 {
		return first + " … (+1 line)"
	}
	return fmt.Sprintf("%s … (+%d lines)", first, n)
}

// ChangedFiles implements tool.FileChanger: the file written.
func (t *WriteFile) ChangedFiles(input json.RawMessage) ([]string, bool) {
	return []string{pathScope(input).Path}, false
}

// ChangedFiles implements tool.FileChanger: the file edited.
func (t *EditFile) ChangedFiles(input json.RawMessage) ([]string, bool) {
	return []string{pathScope(input).Path}, false
}
