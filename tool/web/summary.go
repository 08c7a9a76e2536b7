package web

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harness9/harness9/tool"
)

// Summary implements tool.Summarizer: what a finished web_fetch call gave
// the model, in one line for transcripts.
func (*Fetch) Summary(_ json.RawMessage, res tool.Result) string {
	out := res.Output
	if res.IsError {
		line, _, _ := strings.Cut(strings.TrimPrefix(out, "web_fetch: "), "\n")
		return headOf(line, 160)
	}
	head, body, _ := strings.Cut(out, "\n")
	url := strings.TrimPrefix(head, "URL: ")
	if strings.Contains(body, "Summary of the page") {
		return "summarised " + url
	}
	return fmt.Sprintf("fetched %s · %d characters", url, len(body))
}

// Summary implements tool.Summarizer: how many results a search gave.
func (*Search) Summary(_ json.RawMessage, res tool.Result) string {
	if res.IsError {
		line, _, _ := strings.Cut(strings.TrimPrefix(res.Output, "web_search: "), "\n")
		return headOf(line, 160)
	}
	n := 0
	for _, l := range strings.Split(res.Output, "\n") {
		if i := strings.Index(l, ". "); i > 0 && strings.Trim(l[:i], "0123456789") == "" {
			n++
		}
	}
	if n == 1 {
		return "1 result"
	}
	return fmt.Sprintf("%d results", n)
}
