// Package termtext makes text that harness9 does not control — a model's
// answer, its tool calls' arguments, tool errors, a repository's
// .mcp.json — safe to print on the user's terminal.
//
// A terminal obeys the control sequences in what it prints: OSC 52 writes
// the clipboard, OSC 0 retitles the window, CSI moves the cursor and
// erases lines, a carriage return overwrites what came before it, and
// Unicode's bidirectional overrides reorder what the eye reads. Any of
// them lets the author of the text show the user something other than
// what it says — "ls" over an approval question for "rm -rf ~". Clean
// shows every such character as a visible escape instead of obeying it.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Clean returns s with every control character shown as a Go-style escape
// (ESC as \x1b, a C1 control such as CSI as \u009b, a right-to-left
// override as \u202e, a byte that is not UTF-8 as \xff), so that printing
// it cannot drive the terminal. Newlines and tabs are kept, and a "\r\n"
// line ending becomes "\n"; everything else passes unchanged.
func Clean(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// a CRLF line ending: the newline that follows is kept
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case dangerous(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// dangerous reports the non-ASCII runes a terminal acts on or that change
// the order text is displayed in: C1 controls (0x9b is an 8-bit CSI, 0x9d
// an 8-bit OSC), the bidirectional embeddings, overrides and isolates, and
// the line and paragraph separators.
func dangerous(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e || r == 0x200f || r == 0x061c:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}

// safe is the fast path: plain printable ASCII with newlines and tabs.
func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == 0x7f || (c < 0x20 && c != '\n' && c != '\t') {
			return false
		}
	}
	return true
}

// Writer cleans (Clean) everything written to w. Each Write is cleaned on
// its own, so a caller writes whole strings (as fmt.Fprintf does): a
// multi-byte character split across two writes is shown as escaped bytes.
func Writer(w io.Writer) io.Writer { return writer{w} }

type writer struct{ w io.Writer }

func (c writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, Clean(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Output is Clean for a command's output, which may colour itself and
// redraw progress bars: complete escape sequences are removed rather than
// shown, and a carriage return that is not a line ending starts a new line
// (what it overwrote stays visible).
func Output(s string) string {
	s = ansi.Strip(s)
	if strings.Contains(s, "\r") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return Clean(s)
}
