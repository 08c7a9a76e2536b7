package termtext

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// What an attacker prints must reach the terminal with no byte the
// terminal acts on: no ESC, no C1 control, no carriage return, no bidi
// override, no stray high byte.
func TestCleanLeavesNothingTheTerminalObeys(t *testing.T) {
	attacks := map[string]string{
		"osc52 clipboard": "hi\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07there",
		"osc title st":    "\x1b]0;owned\x1b\\",
		"csi erase line":  "rm -rf ~\x1b[2K\x1b[1Gls -la",
		"carriage return": "rm -rf ~\rls -la    ",
		"8-bit csi":       "a\u009b2Kb",
		"8-bit raw byte":  "a\x9b2Kb",
		"bidi override":   "access\u202e txt.exe",
		"bell and back":   "x\a\b\b\by",
		"del":             "x\x7fy",
		"isolate":         "\u2066hidden\u2069",
		"line separator":  "a\u2028b",
	}
	for name, s := range attacks {
		got := Clean(s)
		for _, bad := range []string{"\x1b", "\x07", "\r", "\b", "\x7f", "\u009b", "\x9b", "\u202e", "\u2066", "\u2069", "\u2028"} {
			if strings.Contains(got, bad) {
				t.Errorf("%s: %q still holds %q", name, got, bad)
			}
		}
		for i := 0; i < len(got); i++ {
			if c := got[i]; c < 0x20 && c != '\n' && c != '\t' {
				t.Errorf("%s: control byte %#x in %q", name, c, got)
			}
		}
	}
	if got := Clean("rm -rf ~\x1b[2K\rls"); got != `rm -rf ~\x1b[2K\x0dls` {
		t.Errorf("the hidden command is not shown as written: %q", got)
	}
}

func TestCleanKeepsOrdinaryText(t *testing.T) {
	for _, s := range []string{"", "plain", "tabs\tand\nlines\n", "日本語 ✔ ▶ ○ ⊘ → é", "emoji 🎉"} {
		if got := Clean(s); got != s {
			t.Errorf("Clean(%q) = %q", s, got)
		}
	}
	if got := Clean("windows\r\nline\r\n"); got != "windows\nline\n" {
		t.Errorf("CRLF: %q", got)
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	n, err := fmt.Fprintf(w, "→ %s %s\n", "bash", "echo\x1b]52;c;eA==\x07")
	if err != nil || n != len("→ bash echo\x1b]52;c;eA==\x07\n") {
		t.Fatalf("n=%d err=%v", n, err)
	}
	if strings.ContainsRune(b.String(), 0x1b) || !strings.HasPrefix(b.String(), "→ bash echo") {
		t.Fatalf("%q", b.String())
	}
}

func TestOutputDropsColoursAndKeepsOverwrittenText(t *testing.T) {
	got := Output("\x1b[31mred\x1b[m 10%\r20%\r\n\x1bPtmux;\x1b\x1b]52;c;eA==\a\x1b\\done\x1b")
	if got != "red 10%\n20%\ndone" {
		t.Errorf("Output = %q", got)
	}
}
