package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/picture"
	"github.com/harness9/harness9/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxNameLen is the longest tool name the model APIs accept.
const maxNameLen = 64

const maxDescription = 4096

// mcpTool is one tool of a connected server.
type mcpTool struct {
	name        string // harness9 name, mcp__server__tool
	server      string
	remote      string // the server's own name for it
	description string
	schema      json.RawMessage
	readOnly    bool
	srv         *server
	timeout     time.Duration // bounds one call; 0: none
}

// newMCPTool is t of server s, not yet named (the Manager assigns names).
func newMCPTool(s *server, t *mcp.Tool) *mcpTool {
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	if desc == "" && t.Annotations != nil {
		desc = t.Annotations.Title
	}
	if len(desc) > maxDescription {
		desc = strings.ToValidUTF8(desc[:maxDescription], "") + "…"
	}
	return &mcpTool{
		server:      s.name,
		remote:      t.Name,
		description: fmt.Sprintf("[MCP server %s] %s", s.name, desc),
		schema:      inputSchema(t.InputSchema),
		readOnly:    t.Annotations != nil && t.Annotations.ReadOnlyHint,
		srv:         s,
	}
}

// inputSchema passes the server's schema through, made acceptable to every
// provider: an object schema with a "properties" member.
func inputSchema(s any) json.RawMessage {
	var m map[string]any
	if b, err := json.Marshal(s); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m == nil {
		m = map[string]any{}
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if _, ok := m["properties"]; !ok && m["type"] == "object" {
		m["properties"] = map[string]any{}
	}
	b, _ := json.Marshal(m)
	return b
}

func (t *mcpTool) Name() string            { return t.name }
func (t *mcpTool) Description() string     { return t.description }
func (t *mcpTool) Schema() json.RawMessage { return t.schema }

// ReadOnly reports the server's readOnlyHint. It is a hint from the server,
// trusted because the user configured the server.
func (t *mcpTool) ReadOnly() bool { return t.readOnly }

// Execute calls the tool on its server. Failures, the server's own included,
// come back as error results for the model.
func (t *mcpTool) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	args := bytes.TrimSpace(input)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) {
		args = []byte("{}")
	}
	if !json.Valid(args) || args[0] != '{' {
		return tool.Errorf("%s: arguments must be one JSON object matching the schema", t.name), nil
	}
	call := ctx
	if t.timeout > 0 {
		var cancel context.CancelFunc
		call, cancel = context.WithTimeout(ctx, t.timeout)
		defer cancel()
	}
	params := &mcp.CallToolParams{Name: t.remote, Arguments: json.RawMessage(args)}
	// The call is the server's current one: its requests for input go to
	// this call's user, its progress to this call's output.
	active, end := t.srv.begin(ctx)
	defer end()
	if active.progress != nil {
		tok := t.srv.m.progress.add(active.progress)
		// Notifications are handled apart from the result: the last ones
		// may come just after it.
		defer time.AfterFunc(progressGrace, func() { t.srv.m.progress.remove(tok) })
		params.SetProgressToken(tok)
	}
	res, err := t.srv.session.CallTool(call, params)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		if call.Err() != nil {
			return tool.Errorf("MCP server %s, tool %s: no result within %s, so the call was given up; "+
				"try smaller steps, or another way", t.server, t.remote, t.timeout), nil
		}
		return tool.Errorf("MCP server %s, tool %s: %v", t.server, t.remote, err), nil
	}
	return convertResult(res), nil
}

// maxResultImages is how many pictures of one MCP result reach the model;
// the rest are described in text.
const maxResultImages = 4

// convertResult renders an MCP result for the model: text content joined,
// pictures passed on as images (checked, and downscaled like read_file's,
// by the picture package: a server's bytes are not trusted to be what its
// MIME type says), other content described, structured content as JSON
// (unless a text block already carries the same JSON).
func convertResult(res *mcp.CallToolResult) tool.Result {
	if res.NeedsInput() {
		return tool.Errorf("the MCP tool asked for user input, which harness9 does not support")
	}
	var parts []string
	var images []llm.Image
	tried := 0 // pictures prepared, attached or not: a refused one costs a decode too
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok && !res.IsError {
			if tried < maxResultImages {
				tried++
				img, err := picture.Prepare(ic.Data, fmt.Sprintf("image %d", tried))
				if err == nil {
					images = append(images, img)
					parts = append(parts, fmt.Sprintf("[image %d: %s, %d×%d, attached]", len(images), img.MediaType, img.Width, img.Height))
					continue
				}
				parts = append(parts, fmt.Sprintf("[image: %s, %d bytes, not attached: %v]", ic.MIMEType, len(ic.Data), err))
				continue
			}
		}
		if s := renderContent(c); s != "" {
			parts = append(parts, s)
		}
	}
	out := strings.Join(parts, "\n")
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && !sameJSON(parts, b) {
			if out != "" {
				out += "\n\n"
			}
			out += string(b)
		}
	}
	if res.IsError {
		if out == "" {
			out = "the MCP tool reported an error without a message"
		}
		return tool.Result{Output: out, IsError: true}
	}
	return tool.Result{Output: out, Images: images}
}

func renderContent(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *mcp.ResourceLink:
		label := c.Name
		if c.Description != "" {
			label += " (" + c.Description + ")"
		}
		return fmt.Sprintf("[resource link: %s %s]", label, c.URI)
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return ""
		}
		if c.Resource.Text != "" {
			return fmt.Sprintf("[resource %s]\n%s", c.Resource.URI, c.Resource.Text)
		}
		return fmt.Sprintf("[resource %s: %s, %d bytes]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob))
	}
	if b, err := json.Marshal(c); err == nil {
		return string(b)
	}
	return ""
}

// sameJSON reports whether one of the text blocks is the JSON b.
func sameJSON(texts []string, b []byte) bool {
	var want any
	if json.Unmarshal(b, &want) != nil {
		return false
	}
	wantNorm, _ := json.Marshal(want)
	for _, t := range texts {
		var got any
		if json.Unmarshal([]byte(t), &got) == nil {
			if g, _ := json.Marshal(got); bytes.Equal(g, wantNorm) {
				return true
			}
		}
	}
	return false
}

// Name returns the harness9 name of a server's tool: mcp__<server>__<tool>
// with characters outside [a-zA-Z0-9_-] replaced by '_', shortened to 64
// characters with a hash suffix when too long.
func Name(server, remote string) string {
	full := "mcp__" + sanitize(server) + "__" + sanitize(remote)
	if len(full) <= maxNameLen {
		return full
	}
	h := fnv.New32a()
	h.Write([]byte(server + "\x00" + remote))
	suffix := fmt.Sprintf("_%08x", h.Sum32())
	return full[:maxNameLen-len(suffix)] + suffix
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// nameSet hands out unique tool names: a second tool sanitising to a name
// already taken gets a numbered suffix.
type nameSet map[string]bool

func newNameSet() nameSet { return nameSet{} }

func (n nameSet) claim(server, remote string) string {
	base := Name(server, remote)
	name := base
	for i := 2; n[name]; i++ {
		suffix := fmt.Sprintf("_%d", i)
		name = base[:min(len(base), maxNameLen-len(suffix))] + suffix
	}
	n[name] = true
	return name
}
