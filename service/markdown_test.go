package service

import (
	"strings"
	"testing"
)

// A plan's tables render as HTML tables; what the model writes in a cell
// gets the same treatment as the rest of the plan: raw HTML left out,
// javascript: links dropped, inline markdown rendered.
func TestRenderMarkdownTables(t *testing.T) {
	src := "# Plan\n\n" +
		"| step | file | note |\n" +
		"|:-----|-----:|:----:|\n" +
		"| 1 | `a.go` | **now** |\n" +
		"| 2 | <img src=x onerror=alert(1)> | [x](javascript:alert(2)) |\n" +
		"| 3 | <script>alert(3)</script> |\n\n" +
		"```\nnot | a | table\n--- | --- | ---\n```\n\n" +
		"a | b but no delimiter row\n"
	got := string(renderMarkdown(src))
	for _, want := range []string{
		"<h1>Plan</h1>",
		"<table>", "<thead>", `<th class="align-left">step</th>`, `<th class="align-right">file</th>`, `<th class="align-center">note</th>`,
		`<td class="align-right"><code>a.go</code></td>`, "<strong>now</strong>",
		"<td class=\"align-center\"></td>", // a short row is padded to the header's columns
		"<pre><code>not | a | table\n--- | --- | ---\n</code></pre>",
		"<p>a | b but no delimiter row</p>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered plan lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"<img", "<script", "javascript:"} {
		if strings.Contains(got, bad) {
			t.Errorf("rendered plan holds %q:\n%s", bad, got)
		}
	}
	if n := strings.Count(got, "<table>"); n != 1 {
		t.Errorf("%d tables rendered, want 1:\n%s", n, got)
	}
}
