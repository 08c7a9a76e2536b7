package web

import (
	"net/url"
	"strings"
	"testing"
)

// BenchmarkHTMLToMarkdown converts a ~200 KB article page.
func BenchmarkHTMLToMarkdown(b *testing.B) {
	body := []byte(strings.Replace(articleHTML, "<h2>Diet</h2>", strings.Repeat("<h2>Diet</h2><p>Gophers eat roots, tubers and <a href=\"/x\">bulbs</a> found underground near their tunnels.</p>", 1500), 1))
	u, _ := url.Parse("https://example.com/gophers")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := htmlToMarkdown(body, u); err != nil {
			b.Fatal(err)
		}
	}
}
