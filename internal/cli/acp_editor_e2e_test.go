package cli_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With the client's file system, the file tools read the editor's
// unsaved buffer and write through the editor; a path outside the workdir
// (given directly or through a symlink) is refused before the editor is
// asked, so nothing outside reaches the model.
func TestACPFileToolsUseTheEditor(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	notes := filepath.Join(h.workdir, "notes.txt")
	writeFile(t, notes, "on disk\n")
	secret := filepath.Join(filepath.Dir(h.workdir), "secret.txt")
	writeFile(t, secret, "OUTSIDE SECRET\n")
	if err := os.Symlink(secret, filepath.Join(h.workdir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	model := h.script(`{"turns": [
	  {"calls": [{"name": "read_file", "input": {"path": "notes.txt"}}]},
	  {"calls": [{"name": "edit_file", "input": {"path": "notes.txt", "old_string": "unsaved line", "new_string": "edited line"}}], "match": {"last_tool_result_contains": "unsaved line"}},
	  {"calls": [{"name": "write_file", "input": {"path": "new.txt", "content": "brand new\n"}}]},
	  {"calls": [{"name": "read_file", "input": {"path": "../secret.txt"}}]},
	  {"calls": [{"name": "read_file", "input": {"path": "link.txt"}}]},
	  {"text": "done", "match": {"no_message_contains": "OUTSIDE SECRET"}}
	]}`)
	log := h.acp(acpRun{
		args:    []string{"-m", model},
		fs:      map[string]bool{"readTextFile": true, "writeTextFile": true},
		buffers: map[string]string{notes: "unsaved line\n"},
		steps: opening(h.workdir, []map[string]any{
			{"op": "prompt", "session": "s", "text": "tidy the notes"},
		}),
	})
	if got := stopReason(t, log, 2); got != "end_turn" {
		t.Fatalf("stop reason %q", got)
	}
	var ops []string
	for _, f := range log.FS {
		if !strings.HasPrefix(f.Path, h.workdir+string(filepath.Separator)) {
			t.Fatalf("the editor was asked about %s, outside the workdir", f.Path)
		}
		ops = append(ops, f.Op+" "+filepath.Base(f.Path)+" "+strings.TrimSpace(f.Content))
	}
	joined := strings.Join(ops, "; ")
	if !strings.Contains(joined, "write notes.txt edited line") || !strings.Contains(joined, "write new.txt brand new") {
		t.Fatalf("editor calls: %s", joined)
	}
	if b, _ := os.ReadFile(notes); string(b) != "edited line\n" {
		t.Fatalf("notes.txt = %q: the edit did not apply to the editor's buffer", b)
	}
	for _, title := range []string{"read_file: ../secret.txt", "read_file: link.txt"} {
		if _, ups := log.toolCall(t, 2, title); lastStatus(ups) != "failed" {
			t.Fatalf("%s ended %q", title, lastStatus(ups))
		}
	}
}

// Images and resources in a prompt reach the model as in the TUI: a
// resource link is read through the workspace and attached, an embedded
// resource is attached as the editor gave it, an image goes with the
// prompt.
func TestACPPromptImagesAndResources(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	writeFile(t, filepath.Join(h.workdir, "main.go"), "package main // MAIN_GO_CONTENT\n")
	var pic bytes.Buffer
	if err := png.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	model := h.script(`{"turns": [
	  {"text": "seen", "match": {"last_user_contains": "SELECTED_TEXT_42", "any_message_contains": "MAIN_GO_CONTENT", "images": 1}}
	]}`)
	log := h.acp(acpRun{
		args: []string{"-m", model},
		steps: opening(h.workdir, []map[string]any{
			{"op": "prompt", "session": "s", "blocks": []map[string]any{
				{"type": "text", "text": "explain"},
				{"type": "resource_link", "name": "main.go", "uri": "file://" + filepath.Join(h.workdir, "main.go")},
				{"type": "resource", "resource": map[string]any{"uri": "file://" + filepath.Join(h.workdir, "sel.txt"), "text": "SELECTED_TEXT_42", "mimeType": "text/plain"}},
				{"type": "image", "data": base64.StdEncoding.EncodeToString(pic.Bytes()), "mimeType": "image/png"},
			}},
		}),
	})
	if got := stopReason(t, log, 2); got != "end_turn" || log.text(2, "agent_message_chunk") != "seen" {
		t.Fatalf("stop reason %q, said %q", got, log.text(2, "agent_message_chunk"))
	}
	if th := log.text(2, "agent_thought_chunk"); !strings.Contains(th, "attached main.go (1 line), sel.txt (1 line)") {
		t.Fatalf("the user was told %q", th)
	}
}

// The client's MCP servers are the user's own: they start in a project
// nobody trusted, and their tools are asked about like config.toml's.
func TestACPClientMCPServers(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	out := filepath.Join(h.workdir, "stored.txt")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	model := h.script(`{"turns": [
	  {"calls": [{"name": "mcp__srv__put", "input": {"text": "from the editor"}}], "match": {"has_tool": "mcp__srv__put"}},
	  {"text": "stored"}
	]}`)
	log := h.acp(acpRun{
		args: []string{"-m", model},
		steps: []map[string]any{
			{"op": "initialize"},
			{"op": "new", "cwd": h.workdir, "as": "s", "mcpServers": []map[string]any{{
				"name": "srv", "command": self, "args": []string{},
				"env": []map[string]string{{"name": envServeMCP, "value": "1"}, {"name": envMCPOut, "value": out}},
			}}},
			{"op": "prompt", "session": "s", "text": "store it"},
		},
		answers: []string{"allow_once"},
	})
	if got := stopReason(t, log, 2); got != "end_turn" {
		t.Fatalf("stop reason %q", got)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "from the editor" {
		t.Fatalf("stored.txt = %q, %v", b, err)
	}
	if len(log.Permissions) != 1 || !strings.HasPrefix(log.Permissions[0].ToolCall.Title, "mcp__srv__put") {
		t.Fatalf("permission requests %+v", log.Permissions)
	}
}
