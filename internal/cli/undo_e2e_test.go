package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Undo through the binary: three turns (write_file, edit_file, a bash
// `sed -i`), each rewound with `sessions rewind`, restore the bytes exactly;
// a file the user changed after the agent is skipped unless --force.
func TestRewindRestoresWriteEditAndBashBytes(t *testing.T) {
	h := newHarness(t)
	orig := "alpha\r\nbeta\t\u00e9\r\nno final newline"
	sedOrig := "color = red\nsize = 3\n"
	for name, body := range map[string]string{"edit.txt": orig, "sed.conf": sedOrig, "write.txt": "old\n"} {
		if err := os.WriteFile(filepath.Join(h.workdir, name), []byte(body), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(h.workdir, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	// One script for the three runs: the scripted model answers by how many
	// assistant messages the history already holds.
	model := h.script(`{"turns": [
	  {"calls": [{"name": "write_file", "input": {"path": "write.txt", "content": "new\n"}},
	             {"name": "write_file", "input": {"path": "made/new.txt", "content": "fresh"}}]},
	  {"text": "done"},
	  {"calls": [{"name": "edit_file", "input": {"path": "edit.txt", "old_string": "beta", "new_string": "BETA"}}]},
	  {"text": "done"},
	  {"calls": [{"name": "bash", "input": {"command": "sed -i 's/red/blue/' sed.conf"}}]},
	  {"text": "done"}
	]}`)
	id := ""
	for _, prompt := range []string{"write", "edit", "sed"} {
		args := []string{"run", "--json", "-C", h.workdir, "-m", model}
		if id != "" {
			args = append(args, "--resume", id)
		}
		r := h.run("", append(args, prompt)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s%s", prompt, r.code, r.stderr, r.stdout)
		}
		for _, res := range r.find("tool_result") {
			if res["is_error"] == true {
				t.Fatalf("%s: tool failed: %v", prompt, res["output"])
			}
		}
		id = r.find("session")[0]["session_id"].(string)
	}
	if read("sed.conf") != "color = blue\nsize = 3\n" || !strings.Contains(read("edit.txt"), "BETA") || read("write.txt") != "new\n" {
		t.Fatalf("the turns did not change the files: %q %q %q", read("sed.conf"), read("edit.txt"), read("write.txt"))
	}

	// sessions show lists the three turns.
	show := h.run("", "sessions", "show", id, "--json")
	var d struct {
		Checkpoints []struct {
			Turn  int
			Files []string
		}
	}
	if err := json.Unmarshal([]byte(show.stdout), &d); err != nil || len(d.Checkpoints) != 3 {
		t.Fatalf("sessions show checkpoints: %v\n%s", err, show.stdout)
	}
	if f := d.Checkpoints[2].Files; len(f) != 1 || f[0] != "sed.conf" {
		t.Fatalf("the bash turn's files = %v, want [sed.conf]", f)
	}

	// Undo the sed turn.
	r := h.run("", "sessions", "rewind", id, "--to", "3", "--json")
	if r.code != 0 {
		t.Fatalf("rewind 3: exit %d: %s", r.code, r.stderr)
	}
	if read("sed.conf") != sedOrig {
		t.Fatalf("sed.conf = %q, want %q", read("sed.conf"), sedOrig)
	}
	// The user changes write.txt after the agent: rewinding to turn 1
	// restores edit.txt but leaves write.txt and reports it.
	if err := os.WriteFile(filepath.Join(h.workdir, "write.txt"), []byte("mine\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	r = h.run("", "sessions", "rewind", id, "--to", "1", "--json")
	var rep struct {
		Restored, Deleted []string
		Skipped           []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil {
		t.Fatalf("rewind 1: exit %d %v: %s %s", r.code, err, r.stdout, r.stderr)
	}
	if read("edit.txt") != orig {
		t.Fatalf("edit.txt = %q, want %q", read("edit.txt"), orig)
	}
	if read("write.txt") != "mine\n" || len(rep.Skipped) != 1 || rep.Skipped[0].Path != "write.txt" {
		t.Fatalf("the user's write.txt must be skipped: %q %+v", read("write.txt"), rep)
	}
	if read("made/new.txt") != "<missing>" || len(rep.Deleted) != 1 {
		t.Fatalf("made/new.txt should be deleted: %+v", rep)
	}
	if fi, _ := os.Stat(filepath.Join(h.workdir, "edit.txt")); fi.Mode().Perm() != 0o640 {
		t.Fatalf("edit.txt mode = %v", fi.Mode().Perm())
	}
	// The transcript keeps everything and says what was rewound.
	show = h.run("", "sessions", "show", id)
	if !strings.Contains(show.stdout, "The user undid file changes") || !strings.Contains(show.stdout, "turn 1 (undone)") {
		t.Fatalf("sessions show after rewind:\n%s", show.stdout)
	}
	if r := h.run("", "sessions", "rewind", id); r.code != 2 {
		t.Fatalf("rewind without --to: exit %d, want 2", r.code)
	}
}
