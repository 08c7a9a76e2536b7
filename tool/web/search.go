package web

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harness9/harness9/tool"
)

//go:embed web_search.md
var searchDescription string

// SearchResult is one hit of a web search.
type SearchResult struct {
	Title       string
	URL         string
	Description string
}

// Searcher is a web search backend (Brave and Anthropic in this package;
// bring your own by implementing it). Its errors are shown to the model
// as tool errors, so they must not carry secrets.
type Searcher interface {
	Search(ctx context.Context, query string, count int) ([]SearchResult, error)
}

// Search limits.
const (
	DefaultSearchCount = 8
	maxSearchCount     = 20
)

// SearchInput is the input of web_search.
type SearchInput struct {
	Query string `json:"query" jsonschema:"what to search the web for"`
	Count int    `json:"count,omitempty" jsonschema:"how many results to return (1-20, default 8)"`
}

// Search is the web_search tool. It is read-only.
type Search struct {
	tool.Spec
	s Searcher
}

// NewSearch returns the web_search tool backed by s.
func NewSearch(s Searcher) *Search {
	return &Search{Spec: tool.NewSpec[SearchInput]("web_search", searchDescription), s: s}
}

// ReadOnly implements tool.ReadOnly.
func (*Search) ReadOnly() bool { return true }

// Kind implements tool.Kinded.
func (*Search) Kind() tool.Kind { return tool.KindSearch }

// Execute implements tool.Tool.
func (t *Search) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, t.Name(), input, t.search)
}

func (t *Search) search(ctx context.Context, in SearchInput) (tool.Result, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return tool.Errorf("web_search: query is required"), nil
	}
	n := in.Count
	if n <= 0 {
		n = DefaultSearchCount
	}
	n = min(n, maxSearchCount)
	results, err := t.s.Search(ctx, q, n)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Errorf("web_search: %v", err), nil
	}
	if len(results) == 0 {
		return tool.Text(fmt.Sprintf("No results for %q.", q)), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Results for %q:\n", q)
	for i, r := range results {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, oneLine(r.Title), r.URL)
		if d := oneLine(r.Description); d != "" {
			fmt.Fprintf(&b, "   %s\n", d)
		}
	}
	b.WriteString("\nUse web_fetch to read a result.")
	return tool.Text(b.String()), nil
}

// oneLine collapses whitespace and drops the markup some APIs put in
// snippets (<strong> around matched words).
func oneLine(s string) string {
	var b strings.Builder
	inTag := false
	for _, r := range s {
		switch {
		case r == '<':
			inTag = true
		case r == '>' && inTag:
			inTag = false
		case !inTag:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(unescape(b.String())), " ")
}

var entities = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&#x27;", "'", "&nbsp;", " ")

func unescape(s string) string { return entities.Replace(s) }
