package web

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// kind is how a response body is turned into text for the model.
type kind int

const (
	kindRefused kind = iota // binary: images, PDF, archives ...
	kindHTML                // converted to markdown
	kindText                // passed through
)

// classifyType decides from the Content-Type header, or from the bytes
// when the server sent none.
func classifyType(contentType string, body []byte) (kind, string) {
	mt, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	mt = strings.ToLower(mt)
	switch {
	case mt == "text/html", mt == "application/xhtml+xml":
		return kindHTML, mt
	case strings.HasPrefix(mt, "text/"),
		mt == "application/json", strings.HasSuffix(mt, "+json"),
		mt == "application/xml", strings.HasSuffix(mt, "+xml"),
		mt == "application/javascript", mt == "application/x-javascript",
		mt == "application/ecmascript", mt == "application/x-ndjson",
		mt == "application/yaml", mt == "application/x-yaml", mt == "application/toml":
		return kindText, mt
	}
	return kindRefused, mt
}

// looksBinary reports bytes no text page holds: a NUL byte in the first
// 8 KiB (the heuristic git and grep use). Text in a legacy charset is not
// binary; it is decoded by toUTF8.
func looksBinary(b []byte) bool {
	head := b
	if len(head) > 8<<10 {
		head = head[:8<<10]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// toUTF8 decodes body from the charset the header or the page names.
func toUTF8(body []byte, contentType string) []byte {
	if utf8.Valid(body) {
		return body
	}
	enc, _, _ := charset.DetermineEncoding(body, contentType)
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}

// minArticle is the length of readable text below which readability's
// extraction is not trusted: on small pages it can drop most of the body,
// so the whole body is converted instead.
const minArticle = 200

// htmlToMarkdown extracts the page's main content and converts it to
// markdown, with the title as a heading. Links are made absolute against
// page.
func htmlToMarkdown(body []byte, page *url.URL) (string, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("the page is not parseable HTML: %w", err)
	}
	domain := page.Scheme + "://" + page.Host
	var title string
	var md []byte
	parser := readability.NewParser()
	// ParseDocument works on a copy, so doc stays whole for the fallback.
	if art, err := parser.ParseDocument(doc, page); err == nil && art.Node != nil {
		title = strings.TrimSpace(art.Title())
		var text strings.Builder
		if art.RenderText(&text) == nil && len(strings.TrimSpace(text.String())) >= minArticle {
			md, err = htmltomarkdown.ConvertNode(art.Node, converter.WithDomain(domain))
			if err != nil {
				md = nil
			}
		}
	}
	if md == nil {
		md, err = htmltomarkdown.ConvertNode(doc, converter.WithDomain(domain))
		if err != nil {
			return "", fmt.Errorf("the page could not be converted to markdown: %w", err)
		}
	}
	out := strings.TrimSpace(string(md))
	if title != "" && !strings.HasPrefix(out, "# ") {
		out = "# " + title + "\n\n" + out
	}
	return out, nil
}
