package mcptool

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is one resource, or resource template, of a server: what the
// user can attach with @server:uri.
type Resource struct {
	Server      string
	URI         string // for a template, the RFC 6570 template ("demo://text/{id}")
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        int64 // bytes, 0 when the server does not say
	Template    bool
}

// ResourceContent is one part of a read resource: text, or a blob.
type ResourceContent struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte // nil for text
}

// maxResources bounds the resources (and templates) listed from one
// server, for completion.
const maxResources = 1000

// Servers returns the names of the configured servers, connected or not.
func (m *Manager) Servers() []string {
	out := make([]string, len(m.servers))
	for i, s := range m.servers {
		out[i] = s.name
	}
	return out
}

// Resources returns the resources and resource templates of every
// connected server that offers them, in server order; lists are kept
// until the server says they changed.
func (m *Manager) Resources(ctx context.Context) []Resource {
	var out []Resource
	for _, s := range m.servers {
		if s.err != nil {
			continue
		}
		s.mu.Lock()
		ok := s.resourceOK
		s.mu.Unlock()
		if !ok {
			list, err := listResources(ctx, s.name, s.session)
			if err == nil {
				s.mu.Lock()
				s.resources, s.resourceOK = list, true
				s.mu.Unlock()
			}
		}
		s.mu.Lock()
		out = append(out, s.resources...)
		s.mu.Unlock()
	}
	return out
}

func listResources(ctx context.Context, server string, session *mcp.ClientSession) ([]Resource, error) {
	if res := session.InitializeResult(); res == nil || res.Capabilities == nil || res.Capabilities.Resources == nil {
		return nil, nil
	}
	var out []Resource
	for r, err := range session.Resources(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing resources: %w", err)
		}
		out = append(out, Resource{Server: server, URI: r.URI, Name: r.Name, Title: r.Title,
			Description: oneLine(r.Description, 300), MIMEType: r.MIMEType, Size: r.Size})
		if len(out) >= maxResources {
			return out, nil
		}
	}
	for r, err := range session.ResourceTemplates(ctx, nil) {
		if err != nil {
			break // templates are optional; the resources stand
		}
		out = append(out, Resource{Server: server, URI: r.URITemplate, Name: r.Name, Title: r.Title,
			Description: oneLine(r.Description, 300), MIMEType: r.MIMEType, Template: true})
		if len(out) >= maxResources {
			break
		}
	}
	return out, nil
}

// ReadResource reads uri from server. A template's URI is read once its
// variables are filled in: the server resolves it.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) ([]ResourceContent, error) {
	s, ok := m.connected(server)
	switch {
	case s == nil:
		return nil, fmt.Errorf("no MCP server is called %s", server)
	case !ok:
		return nil, fmt.Errorf("MCP server %s is not connected: %v", server, s.err)
	}
	res, err := s.session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: %w", server, err)
	}
	var out []ResourceContent
	for _, c := range res.Contents {
		if c != nil {
			out = append(out, ResourceContent{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("MCP server %s returned nothing for %s", server, uri)
	}
	return out, nil
}
