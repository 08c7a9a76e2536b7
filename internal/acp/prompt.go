package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/internal/mention"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/picture"
)

// promptInput is a prompt's content blocks as the engine takes them.
type promptInput struct {
	text   string // the user's text, with a reference where a resource was
	images []llm.Image
	att    *mention.Attachments // the resources' text, appended after the prompt
}

// readPrompt turns content blocks into a prompt: text as it is, images
// prepared for the model, resource links read through the workspace (the
// editor's buffer when it has one) and embedded resources as the user gave
// them, both attached as @files are in the TUI. Anything this agent did
// not advertise, or cannot use, is an invalid-params error and nothing is
// sent.
func (ss *sess) readPrompt(ctx context.Context, blocks []sdk.ContentBlock) (promptInput, error) {
	in := promptInput{att: &mention.Attachments{}}
	var b strings.Builder
	for i, blk := range blocks {
		switch {
		case blk.Text != nil:
			b.WriteString(blk.Text.Text)
		case blk.Image != nil:
			im, err := decodeImage(blk.Image.Data, blk.Image.MimeType, "image")
			if err != nil {
				return in, invalidParams("prompt[%d]: %v", i, err)
			}
			in.images = append(in.images, im)
		case blk.ResourceLink != nil:
			l := blk.ResourceLink
			mime := ""
			if l.MimeType != nil {
				mime = *l.MimeType
			}
			ss.link(ctx, &in, &b, l.Uri, l.Name, mime)
		case blk.Resource != nil:
			if err := ss.embedded(&in, &b, blk.Resource.Resource); err != nil {
				return in, invalidParams("prompt[%d]: %v", i, err)
			}
		case blk.Audio != nil:
			return in, invalidParams("prompt[%d]: audio is not supported (this agent does not advertise the audio prompt capability)", i)
		default:
			return in, invalidParams("prompt[%d]: unknown content block", i)
		}
	}
	in.text = strings.TrimSpace(b.String())
	if in.text == "" && len(in.images) == 0 {
		return in, invalidParams("the prompt is empty")
	}
	if len(in.images) > 0 && !ss.eng.Vision() {
		return in, invalidParams("the model %s does not accept images (the image prompt capability says so); choose a model with vision, "+
			"or set vision = true for its provider in config.toml if it has it", ss.eng.Model())
	}
	return in, nil
}

// link attaches what a resource link names: a file of the workdir (its
// text, or an image), read like every file the agent opens; one that
// cannot be read is reported, not attached. Other links stay in the
// prompt as text.
func (ss *sess) link(ctx context.Context, in *promptInput, b *strings.Builder, uri, name, mime string) {
	p, ok := filePath(uri)
	if !ok {
		b.WriteString(uri)
		return
	}
	rel := ss.rt.Workspace.Rel(p)
	ref(b, rel)
	if !strings.HasPrefix(mime, "image/") && picture.Sniff(ss.head(p)) == "" {
		in.att.File(ctx, ss.rt.Workspace, rel)
		return
	}
	im, err := ss.image(p, firstOf(name, path.Base(filepath.ToSlash(p))))
	if err != nil {
		in.att.Skip(rel, err.Error())
		return
	}
	in.images = append(in.images, im)
}

// image reads the workdir's image file at p.
func (ss *sess) image(p, name string) (llm.Image, error) {
	f, fi, err := ss.rt.Workspace.Open(p)
	if err != nil {
		return llm.Image{}, err
	}
	defer f.Close()
	if fi.IsDir() {
		return llm.Image{}, errors.New("a directory, not a file")
	}
	return picture.Read(f, name)
}

// head is the start of the workdir file at p, "" when it cannot be read.
func (ss *sess) head(p string) []byte {
	data, _, err := ss.rt.Workspace.ReadFile(p, 512)
	if err != nil {
		return nil
	}
	return data
}

// embedded attaches a resource the client sent with its content.
func (ss *sess) embedded(in *promptInput, b *strings.Builder, r sdk.EmbeddedResourceResource) error {
	switch {
	case r.TextResourceContents != nil:
		name := r.TextResourceContents.Uri
		if p, ok := filePath(name); ok {
			name = ss.rt.Workspace.Rel(p)
		}
		ref(b, name)
		in.att.Text(name, r.TextResourceContents.Text)
	case r.BlobResourceContents != nil:
		mime := ""
		if r.BlobResourceContents.MimeType != nil {
			mime = *r.BlobResourceContents.MimeType
		}
		if !strings.HasPrefix(mime, "image/") {
			return fmt.Errorf("the resource %s is binary (%s); only text resources and images can be attached", r.BlobResourceContents.Uri, firstOf(mime, "no type given"))
		}
		im, err := decodeImage(r.BlobResourceContents.Blob, mime, r.BlobResourceContents.Uri)
		if err != nil {
			return err
		}
		in.images = append(in.images, im)
	default:
		return errors.New("the resource has neither text nor blob contents")
	}
	return nil
}

// attach appends the prompt's attachments to text (after a custom
// command's expansion, as `run` does) together with the files text names
// with @path, tells the user what was attached, and checks the size.
func (ss *sess) attach(t *turn, text string, in promptInput) (string, error) {
	in.att.Mentions(ss.rt.Workspace, text)
	if sum := mention.Summary(in.att.Report()); sum != "" {
		t.thought(sum)
	}
	text = in.att.Append(text)
	if ss.rt.CheckPrompt != nil {
		if err := ss.rt.CheckPrompt(text); err != nil {
			return "", invalidParams("%v", err)
		}
	}
	return text, nil
}

// ref writes a reference to a resource into the prompt's text: @path as
// typed in the TUI when that is unambiguous.
func ref(b *strings.Builder, name string) {
	if b.Len() > 0 && !strings.HasSuffix(b.String(), " ") && !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte(' ')
	}
	if strings.ContainsAny(name, " \t\n") {
		b.WriteString("\"" + name + "\"")
		return
	}
	b.WriteString("@" + name)
}

// filePath returns the absolute path of a file:// URI.
func filePath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" || !filepath.IsAbs(u.Path) {
		return "", false
	}
	return filepath.Clean(u.Path), true
}

// decodeImage prepares a base64 image for the model.
func decodeImage(data, mime, name string) (llm.Image, error) {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return llm.Image{}, fmt.Errorf("%s: the data is not base64", name)
	}
	if len(raw) > picture.MaxFileBytes {
		return llm.Image{}, fmt.Errorf("%s is larger than %d MB; make it smaller first", name, picture.MaxFileBytes>>20)
	}
	if name == "image" && mime != "" {
		name = "image (" + mime + ")"
	}
	return picture.Prepare(raw, name)
}
