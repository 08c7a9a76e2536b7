package mention

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/harness9/harness9/tool/mcptool"
)

// fakeResources serves a fixed set of resources of server "docs".
type fakeResources map[string]mcptool.ResourceContent

func (f fakeResources) Servers() []string { return []string{"docs"} }

func (f fakeResources) ReadResource(_ context.Context, server, uri string) ([]mcptool.ResourceContent, error) {
	c, ok := f[uri]
	if !ok || server != "docs" {
		return nil, errors.New("resource not found")
	}
	return []mcptool.ResourceContent{c}, nil
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.White)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Resources are attached like files: text fenced under its server and URI,
// pictures through the picture checks for a model that sees, binary and
// oversized content refused with the reason; a mention of no server stays
// a file mention.
func TestExpandAttachesResources(t *testing.T) {
	ws, _ := workspace(t)
	res := fakeResources{
		"note://a": {URI: "note://a", MIMEType: "text/markdown", Text: "# A\n```\nnot the end\n"},
		"note://j": {URI: "note://j", MIMEType: "application/json", Blob: []byte(`{"k":1}`)},
		"note://z": {URI: "note://z", MIMEType: "application/gzip", Blob: []byte{0x1f, 0x8b, 0, 1}},
		"note://p": {URI: "note://p", MIMEType: "image/png", Blob: pngBytes(t)},
		"note://x": {URI: "note://x", MIMEType: "image/png", Blob: []byte("not a png")},
		"note://b": {URI: "note://b", Text: strings.Repeat("b", MaxFileBytes+1)},
	}
	prompt := "see @docs:note://a, @docs:note://j @docs:note://z @docs:note://p @docs:note://x @docs:note://b @docs:note://missing @other:note://a @main.go"
	e := ExpandAll(context.Background(), ws, prompt, res, true)
	for _, want := range []string{
		"<resource server=\"docs\" uri=\"note://a\">\n````\n# A\n```\nnot the end\n````\n</resource>",
		"<resource server=\"docs\" uri=\"note://j\">\n```\n{\"k\":1}\n```\n</resource>",
		"<file path=\"main.go\">",
	} {
		if !strings.Contains(e.Text, want) {
			t.Errorf("expanded prompt lacks %q:\n%s", want, e.Text)
		}
	}
	if strings.Contains(e.Text, "bbbb") || strings.Contains(e.Text, "note://z\">") {
		t.Error("refused content reached the prompt")
	}
	if len(e.Images) != 1 || e.Images[0].MediaType != "image/png" {
		t.Errorf("images = %d", len(e.Images))
	}
	sum := Summary(e.Report)
	for _, want := range []string{"docs:note://a (3 lines)", "docs:note://p (picture)", "docs:note://z: binary content (application/gzip)",
		"docs:note://x: not a PNG", "docs:note://b: larger than", "docs:note://missing: resource not found"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q: %s", want, sum)
		}
	}
	if !strings.Contains(sum, "other:note://a: no such file") {
		t.Errorf("a mention of no server is not taken for a file: %s", sum)
	}

	e = ExpandAll(context.Background(), ws, "look @docs:note://p", res, false)
	if len(e.Images) != 0 || !strings.Contains(Summary(e.Report), "does not accept images") {
		t.Errorf("a model without vision got %d images: %s", len(e.Images), Summary(e.Report))
	}
}

// Completion offers the matching "server:uri" mentions, resources before
// templates, a template up to its first variable, each once.
func TestCompleteResources(t *testing.T) {
	list := []mcptool.Resource{
		{Server: "docs", URI: "file:///guide.md"},
		{Server: "docs", URI: "docs://pages/{id}", Template: true},
		{Server: "docs", URI: "docs://pages/{id}/raw", Template: true},
		{Server: "docs", URI: "docs://pages/intro"},
		{Server: "other", URI: "docs://pages/x"},
	}
	got := CompleteResources(list, "Docs:docs://")
	want := []string{"docs:docs://pages/intro", "docs:docs://pages/"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("docs:docs:// → %q, want %q", got, want)
	}
	if got := CompleteResources(list, "d"); len(got) != 3 {
		t.Errorf("d → %q", got)
	}
	if got := CompleteResources(list, "nothing"); got != nil {
		t.Errorf("nothing → %q", got)
	}
}
