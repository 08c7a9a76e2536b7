package mcptool

import (
	"context"
	"net/url"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newClient is the MCP client of one server: it answers the server's
// elicitation requests (through the asking tool call's user, or the
// WithElicitation fallback), offers the roots given by WithRoots, routes
// progress notifications to the calls they belong to, and follows the
// server's list_changed notifications.
func (m *Manager) newClient(s *server) *mcp.Client {
	caps := &mcp.ClientCapabilities{
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
	}
	if len(m.opts.roots) > 0 {
		// The roots are fixed for the manager's life: no list_changed.
		// Roots are deprecated from protocol 2026-07-28 on, but the servers
		// of every earlier version ask for them.
		//lint:ignore SA1019 servers of protocols before 2026-07-28 use roots
		caps.RootsV2 = &mcp.RootCapabilities{}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "harness9", Version: m.opts.version}, &mcp.ClientOptions{
		Capabilities: caps,
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return m.elicit(ctx, s, req.Params)
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			m.progress.deliver(req.Params)
		},
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { m.toolsChanged(s) },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { s.forgetPrompts() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { s.forgetResources() },
	})
	for _, dir := range m.opts.roots {
		//lint:ignore SA1019 servers of protocols before 2026-07-28 use roots
		c.AddRoots(&mcp.Root{URI: fileURI(dir), Name: filepath.Base(dir)})
	}
	return c
}

// fileURI is dir as a file:// URI.
func fileURI(dir string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String()
}
