package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMarkdownRendering(t *testing.T) {
	src := "# Plan\n\nSome **bold** and *em* and `code` with a [link](https://x.dev).\n\n" +
		"- one\n- two\n  - nested\n\n1. first\n2. second\n\n- [x] done\n- [ ] todo\n\n" +
		"> quoted\n\n```go\nfunc main() {\n    fmt.Println(\"hi\")\n}\n```\n\n" +
		"| name | value |\n|---|---|\n| a | 1 |\n| longer | 22 |\n\n---\n\n~~gone~~\n"
	lines := newMarkdown().render(src, 60)
	got := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{
		"  Plan\n",
		"  Some bold and em and code with a link (https://x.dev).",
		"  • one\n  • two\n    • nested",
		"  1. first\n  2. second",
		"  • [x] done\n  • [ ] todo",
		"  │ quoted",
		"    func main() {\n        fmt.Println(\"hi\")\n    }",
		"  name   │ value\n  ───────┼──────\n  a      │ 1\n  longer │ 22",
		"gone",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendering lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "#") {
		t.Errorf("a heading's hashes are shown:\n%s", got)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("line wider than 60 (%d): %q", w, ansi.Strip(l))
		}
	}
}

// Every line fits however narrow the transcript is, and nothing is lost:
// long words and code lines wrap rather than being cut.
func TestMarkdownNarrow(t *testing.T) {
	src := "A paragraph with averyveryveryverylongwordthatdoesnotfit in it.\n\n```\n" + strings.Repeat("x", 50) + "\n```\n"
	lines := newMarkdown().render(src, 20)
	all := ansi.Strip(strings.Join(lines, ""))
	if strings.Count(all, "x") != 50 || !strings.Contains(strings.ReplaceAll(all, " ", ""), "averyveryveryverylongwordthatdoesnotfit") {
		t.Errorf("text lost:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 20 {
			t.Errorf("line wider than 20 (%d): %q", w, ansi.Strip(l))
		}
	}
}
