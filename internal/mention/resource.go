package mention

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harness9/harness9/picture"
	"github.com/harness9/harness9/tool/mcptool"
)

// Resources reads the MCP resources a prompt mentions as @server:uri
// (mcptool.Manager is one).
type Resources interface {
	Servers() []string
	ReadResource(ctx context.Context, server, uri string) ([]mcptool.ResourceContent, error)
}

// resourceReadTimeout bounds reading one mentioned resource.
const resourceReadTimeout = 30 * time.Second

// resourceRef splits "server:uri" when server is one of servers.
func resourceRef(raw string, servers []string) (server, uri string, ok bool) {
	server, uri, found := strings.Cut(raw, ":")
	if !found || uri == "" || !slices.Contains(servers, server) {
		return "", "", false
	}
	return server, uri, true
}

// resource attaches what server returns for uri: text like a file,
// pictures (for a model with vision) through the picture checks.
func (a *Attachments) resource(ctx context.Context, res Resources, server, uri string, vision bool) {
	name := server + ":" + uri
	if a.done[name] {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, resourceReadTimeout)
	defer cancel()
	// "read @docs:file:///a.md." — the full stop is the sentence's: the
	// URI without it is tried first (a server may well accept both).
	var contents []mcptool.ResourceContent
	err := errors.New("no URI")
	if trimmed := trimPunct(uri); trimmed != uri && trimmed != "" {
		if contents, err = res.ReadResource(ctx, server, trimmed); err == nil {
			uri, name = trimmed, server+":"+trimmed
		}
	}
	if err != nil {
		contents, err = res.ReadResource(ctx, server, uri)
	}
	if err != nil {
		a.report = append(a.report, Attached{Path: name, Problem: oneLine(err.Error())})
		return
	}
	for _, c := range contents {
		label := name
		if c.URI != "" && c.URI != uri {
			label = server + ":" + c.URI
		}
		a.content(server, label, c, vision)
	}
	a.markDone(name)
}

// content attaches one part of a resource.
func (a *Attachments) content(server, label string, c mcptool.ResourceContent, vision bool) {
	mt, _, _ := mime.ParseMediaType(c.MIMEType)
	data := []byte(c.Text)
	if c.Blob != nil {
		if strings.HasPrefix(mt, "image/") {
			a.picture(label, c.Blob, vision)
			return
		}
		if !textual(mt) || !utf8.Valid(c.Blob) {
			a.report = append(a.report, Attached{Path: label, Problem: fmt.Sprintf("binary content (%s)", orUnknown(c.MIMEType))})
			return
		}
		data = c.Blob
	}
	a.block("resource", fmt.Sprintf("server=%q uri=%q", server, strings.TrimPrefix(label, server+":")), label, data, len(data) > MaxFileBytes)
}

// picture attaches an image resource.
func (a *Attachments) picture(label string, data []byte, vision bool) {
	if !vision {
		a.report = append(a.report, Attached{Path: label, Problem: "a picture, and the model does not accept images"})
		return
	}
	img, err := picture.Prepare(data, "picture")
	if err != nil {
		a.report = append(a.report, Attached{Path: label, Problem: oneLine(strings.TrimPrefix(err.Error(), "picture: "))})
		return
	}
	a.images = append(a.images, img)
	a.report = append(a.report, Attached{Path: label, Picture: true})
}

// textual reports whether a blob of media type mt is text.
func textual(mt string) bool {
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || mt == "application/xml" ||
		strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") || mt == "application/yaml"
}

func orUnknown(s string) string {
	if s == "" {
		return "no media type"
	}
	return s
}

// oneLine is an error message on one line, not too long.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = strings.ToValidUTF8(s[:160], "") + "…"
	}
	return s
}

// maxResourceCompletions is how many "@server:uri" candidates
// CompleteResources returns.
const maxResourceCompletions = 50

// CompleteResources returns the "server:uri" mentions of list that start
// with prefix (case-insensitively), resources first, then templates; a
// template is offered up to its first variable ("demo://text/" for
// "demo://text/{id}"), for the user to type the rest.
func CompleteResources(list []mcptool.Resource, prefix string) []string {
	var fixed, templates []string
	seen := map[string]bool{}
	lp := strings.ToLower(prefix)
	for _, r := range list {
		uri := r.URI
		if r.Template {
			uri, _, _ = strings.Cut(uri, "{")
		}
		cand := r.Server + ":" + uri
		if seen[cand] || !strings.HasPrefix(strings.ToLower(cand), lp) {
			continue
		}
		seen[cand] = true
		if r.Template {
			templates = append(templates, cand)
		} else {
			fixed = append(fixed, cand)
		}
	}
	out := append(fixed, templates...)
	if len(out) > maxResourceCompletions {
		out = out[:maxResourceCompletions]
	}
	return out
}
