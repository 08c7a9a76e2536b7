package compact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/harness9/harness9/llm"
)

// Shortening old tool outputs is the cheap half of compaction: a file the
// model read ten turns ago has done its work, and in a small window it
// crowds out everything else. Elide keeps the output's first line and a
// note saying what was left out, so the model knows the call happened and
// can make it again; it costs no model call.
const (
	// elideMinBytes: outputs this short are kept whole (the note would
	// save little).
	elideMinBytes = 400
	// elideLineBytes caps the first line kept.
	elideLineBytes = 160
)

// Elide returns a tool result shortened to its first line and a note of
// what was left out. Messages that are not tool results, and results too
// short to gain from it, are returned unchanged. The note depends only on
// the message, so the same history always gives the same request.
func Elide(m llm.Message) llm.Message {
	if m.Role != llm.RoleTool || (len(m.Content) < elideMinBytes && len(m.Images) == 0) {
		return m
	}
	first, rest, _ := strings.Cut(m.Content, "\n")
	kept := len(first)
	if kept > elideLineBytes {
		kept = elideLineBytes
		for kept > 0 && !utf8.RuneStart(first[kept]) {
			kept--
		}
		first = first[:kept] + " …"
	}
	lines := 0
	if rest = strings.TrimSuffix(rest, "\n"); rest != "" {
		lines = strings.Count(rest, "\n") + 1
	}
	var note strings.Builder
	note.WriteString(first)
	fmt.Fprintf(&note, "\n[older tool output shortened to save context: %d more lines (%d bytes) left out", lines, len(m.Content)-kept)
	if n := len(m.Images); n > 0 {
		fmt.Fprintf(&note, " and %d image(s)", n)
	}
	note.WriteString("; call the tool again if you need them]")
	out := m
	out.Content = note.String()
	out.Images = nil
	return out
}
