package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// maxDiffLines caps the diff shown under an edit_file call.
const maxDiffLines = 24

// keyArg picks the one argument that says what a tool call is about.
func keyArg(name string, input json.RawMessage) string {
	var args map[string]any
	if json.Unmarshal(input, &args) != nil {
		return ""
	}
	switch name {
	case toolTodoWrite:
		if todos, ok := args["todos"].([]any); ok {
			return fmt.Sprintf("%d items", len(todos))
		}
		return "read"
	case toolSubmitPlan:
		if s, ok := args["title"].(string); ok {
			return s
		}
	}
	for _, k := range []string{"path", "command", "pattern", "name", "query", "url"} {
		if s, ok := args[k].(string); ok && s != "" {
			if k == "pattern" {
				if p, ok := args["path"].(string); ok && p != "" {
					return s + " in " + p
				}
			}
			return s
		}
	}
	if len(input) > 0 && string(input) != "{}" {
		return string(input)
	}
	return ""
}

// renderTool draws a tool call as one line, then its collapsed result.
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
	if !b.done {
		return out
	}
	const gutter = "   ⎿ "
	if b.isError {
		first, more := firstLine(b.result)
		out = append(out, errorStyle.Render(ansi.Truncate(gutter+first, width, "…"))+more)
		return out
	}
	if b.name == "edit_file" && looksLikeDiff(b.result) {
		return append(out, renderDiff(b.result, width)...)
	}
	out = append(out, dimStyle.Render(ansi.Truncate(gutter+summarise(b.name, b.result), width, "…")))
	return out
}

// summarise collapses a tool result to one line.
func summarise(name, out string) string {
	out = strings.TrimRight(out, "\n")
	n := strings.Count(out, "\n") + 1
	switch {
	case name == toolTodoWrite:
		return "todo list updated"
	case out == "":
		return "(no output)"
	case n == 1:
		return out
	case name == "read_file":
		return fmt.Sprintf("read %d lines", n)
	}
	first, _ := firstLine(out)
	return fmt.Sprintf("%s … (+%d lines)", first, n-1)
}

func firstLine(s string) (string, string) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i], dimStyle.Render(fmt.Sprintf(" (+%d lines)", strings.Count(s[i:], "\n")))
	}
	return s, ""
}

func looksLikeDiff(s string) bool {
	return strings.Contains(s, "\n@@") || strings.HasPrefix(s, "@@") || strings.HasPrefix(s, "--- ")
}

// renderDiff colours a unified diff: additions green, deletions red.
func renderDiff(diff string, width int) []string {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	var out []string
	for i, l := range lines {
		if i == maxDiffLines {
			out = append(out, dimStyle.Render(fmt.Sprintf("     … %d more diff lines", len(lines)-i)))
			break
		}
		l = ansi.Truncate(strings.ReplaceAll(l, "\t", "    "), max(width-5, 8), "…")
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			out = append(out, "     "+boldStyle.Render(l))
		case strings.HasPrefix(l, "+"):
			out = append(out, "     "+diffAddStyle.Render(l))
		case strings.HasPrefix(l, "-"):
			out = append(out, "     "+diffDelStyle.Render(l))
		case strings.HasPrefix(l, "@@"):
			out = append(out, "     "+diffHunk.Render(l))
		default:
			out = append(out, "     "+dimStyle.Render(l))
		}
	}
	return out
}

// Tool names the transcript treats specially (the same as planning's).
const (
	toolTodoWrite  = "todo_write"
	toolSubmitPlan = "submit_plan"
)
