package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `run "… @file"` attaches the file's content to the prompt the model
// gets; a file outside the workdir, or on the deny list, is not attached
// even when named.
func TestRunAttachesMentionedFiles(t *testing.T) {
	h := newHarness(t)
	writeFile(t, filepath.Join(h.workdir, "notes.txt"), "the magic word is xyzzy\n")
	secret := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, secret, "TOP SECRET")
	if err := os.Symlink(secret, filepath.Join(h.workdir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	model := h.script(`{"turns": [{"text": "It is xyzzy.", "match": {"last_user_contains": "the magic word is xyzzy", "no_message_contains": "TOP SECRET"}}]}`)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "what does @notes.txt say? not @link.txt nor @"+secret)
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("exit %d, last %v\n%s", r.code, r.last(), r.stderr)
	}
	n := r.find("notice")
	if len(n) != 1 || !strings.Contains(n[0]["message"].(string), "attached notes.txt (1 line)") ||
		!strings.Contains(n[0]["message"].(string), "not attached") {
		t.Errorf("notice %v", n)
	}
}
