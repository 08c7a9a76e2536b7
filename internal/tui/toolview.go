package tui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/planning"
)

// maxDiffLines caps the diff shown under an edit_file call.
const maxDiffLines = 24

// keyArg picks the one argument that says what a tool call is about. A
// search shows its pattern first (and where it looked), a command its
// command line, a file tool its path.
func keyArg(name string, input json.RawMessage) string {
	var args map[string]any
	if json.Unmarshal(input, &args) != nil {
		return ""
	}
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch name {
	case planning.TodoWriteName:
		if todos, ok := args["todos"].([]any); ok {
			return fmt.Sprintf("%d items", len(todos))
		}
		return "read"
	case planning.SubmitPlanName:
		if s := str("title"); s != "" {
			return s
		}
	}
	if p := str("pattern"); p != "" {
		p = strconv.Quote(p) // a pattern's spaces and quotes stay visible
		if where := str("path"); where != "" {
			p += " in " + where
		}
		if g := str("glob"); g != "" {
			p += " (" + g + ")"
		}
		return p
	}
	for _, k := range []string{"command", "path", "name", "query", "url", "description"} {
		if s := str(k); s != "" {
			if k == "path" {
				s += lineRange(args)
			}
			return s
		}
	}
	if len(input) > 0 && string(input) != "{}" {
		return string(input)
	}
	return ""
}

// lineRange describes read_file's offset and limit ("" when absent).
func lineRange(args map[string]any) string {
	off, _ := args["offset"].(float64)
	lim, _ := args["limit"].(float64)
	switch {
	case off > 0 && lim > 0:
		return fmt.Sprintf(" (lines %d–%d)", int(off), int(off+lim)-1)
	case off > 0:
		return fmt.Sprintf(" (from line %d)", int(off))
	case lim > 0:
		return fmt.Sprintf(" (first %d lines)", int(lim))
	}
	return ""
}

// renderTool draws a tool call as one line, then its collapsed result:
// the tool's summary, and for a failed call the last lines of its output
// (where the error is). Ctrl+O shows the whole output in the pager.
func renderTool(b *block, width int) []string {
	bullet := dimStyle.Render("●")
	switch {
	case b.done && b.isError:
		bullet = errorStyle.Render("●")
	case b.done:
		bullet = okStyle.Render("●")
	}
	head := " " + bullet + " " + boldStyle.Render(b.name)
	if b.arg != "" {
		arg := strings.ReplaceAll(b.arg, "\n", " ")
		head += " " + ansi.Truncate(arg, max(width-ansi.StringWidth(b.name)-5, 8), "…")
	}
	out := []string{head}
	if b.sub != nil {
		return append(out, b.sub.lines(b, width)...)
	}
	if !b.done {
		return append(out, liveLines(b.live, width)...)
	}
	const gutter = "   ⎿ "
	st := dimStyle
	if b.isError {
		st = errorStyle
	} else if b.diff && looksLikeDiff(b.result) {
		return append(out, renderDiff(b.result, width, 5, maxDiffLines, false)...)
	}
	out = append(out, st.Render(ansi.Truncate(gutter+expandTabs(summarise(b)), width, "…")))
	if b.isError {
		out = append(out, failureTail(b.result, width)...)
	}
	return out
}

// Limits of what a tool block shows beyond its summary.
const (
	maxLiveOutput = 16 << 10 // bytes of a running call's output kept
	liveShown     = 5        // lines of it shown
	failShown     = 6        // last lines of a failed call's output shown
)

// liveLines shows the tail of a running call's output under its head, so a
// long build or test run visibly makes progress.
func liveLines(live string, width int) []string {
	live = strings.TrimRight(live, "\n")
	if strings.TrimSpace(live) == "" {
		return nil
	}
	return tailLines(strings.Split(live, "\n"), liveShown, width)
}

// tailLines draws the last n of lines, dim and indented under a block.
func tailLines(lines []string, n, width int) []string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = dimStyle.Render(ansi.Truncate("     "+expandTabs(ansi.Strip(l)), width, "…"))
	}
	return out
}

// failureTail is the end of a failed call's output, where a test run or a
// build says what went wrong, and how to see the rest.
func failureTail(result string, width int) []string {
	lines := strings.Split(strings.TrimRight(result, "\n"), "\n")
	if len(lines) <= 1 {
		return nil // the summary said it all
	}
	out := tailLines(lines, failShown, width)
	if len(lines) > failShown {
		out = append(out, dimStyle.Render(ansi.Truncate(fmt.Sprintf("     … Ctrl+O shows all %d lines", len(lines)), width, "…")))
	}
	return out
}

// keepTail keeps the last n bytes of s, from a line start when it can.
func keepTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return s
}

// summarise collapses a tool result to one true line: the tool's own
// summary when it gives one (bash leads with its exit code, read_file
// counts lines), else the first line and how many follow.
func summarise(b *block) string {
	out := strings.TrimRight(b.result, "\n")
	switch {
	case b.summary != "":
		return b.summary
	case b.name == planning.TodoWriteName:
		return "todo list updated"
	case strings.TrimSpace(out) == "":
		return "(no output)"
	}
	return firstAndCount(out)
}

// firstAndCount is "first line … (+n lines)".
func firstAndCount(out string) string {
	out = strings.TrimSpace(out)
	first, rest, more := strings.Cut(out, "\n")
	if !more {
		return first
	}
	n := strings.Count(rest, "\n") + 1
	return fmt.Sprintf("%s … (+%d %s)", first, n, plural(n, "line", "lines"))
}

func looksLikeDiff(s string) bool {
	return strings.Contains(s, "\n@@") || strings.HasPrefix(s, "@@") || strings.HasPrefix(s, "--- ")
}

// renderDiff colours a unified diff: additions green, deletions red. Each
// line is indented by indent columns; limit (if > 0) caps the number of
// lines. A line too long for width is cut, or with wrap continued on the
// next rows after a dim ↳ (an approval shows every character).
func renderDiff(diff string, width, indent, limit int, wrap bool) []string {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	pad := strings.Repeat(" ", indent)
	w := max(width-indent, 8)
	var out []string
	for i, l := range lines {
		if limit > 0 && i == limit {
			out = append(out, dimStyle.Render(fmt.Sprintf("%s… %d more diff %s", pad, len(lines)-i, plural(len(lines)-i, "line", "lines"))))
			break
		}
		// The tab stops of the file's text start after the diff's
		// one-column marker.
		if l != "" && strings.ContainsRune(l, '\t') {
			l = l[:1] + expandTabs(l[1:])
		}
		st := dimStyle
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			st = boldStyle
		case strings.HasPrefix(l, "+"):
			st = diffAddStyle
		case strings.HasPrefix(l, "-"):
			st = diffDelStyle
		case strings.HasPrefix(l, "@@"):
			st = diffHunk
		}
		if !wrap {
			out = append(out, pad+st.Render(ansi.Truncate(l, w, "…")))
			continue
		}
		for j, piece := range hardWrap(l, w) {
			if j > 0 {
				out = append(out, pad+dimStyle.Render("↳")+st.Render(piece))
				continue
			}
			out = append(out, pad+st.Render(piece))
		}
	}
	return out
}

// hardWrap cuts s (plain text) into pieces of at most width cells; the
// pieces after the first are one cell narrower, for the ↳ that marks them.
func hardWrap(s string, width int) []string {
	width = max(width, 2)
	if ansi.StringWidth(s) <= width {
		return []string{s}
	}
	first := ansi.Truncate(s, width, "")
	out := []string{first}
	rest := strings.Split(ansi.Hardwrap(s[len(first):], width-1, true), "\n")
	return append(out, rest...)
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// capLines keeps at most n lines, the last one marked when some are left out.
func capLines(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	out := append([]string(nil), lines[:n]...)
	out[n-1] = ansi.Truncate(out[n-1], max(ansi.StringWidth(out[n-1])-1, 1), "") + "…"
	return out
}
