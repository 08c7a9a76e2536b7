package cli

import (
	"context"
	"strings"
	"time"

	"github.com/harness9/harness9/internal/mention"
	"github.com/harness9/harness9/tool/mcptool"
)

// mcpPromptTimeout bounds fetching one MCP prompt.
const mcpPromptTimeout = 30 * time.Second

// mcpPromptPrefix starts the slash command of every MCP prompt.
const mcpPromptPrefix = "/mcp__"

// expandMCPPrompt turns "/mcp__server__prompt args…" into the prompt the
// server returns for those arguments (by position, or NAME=VALUE); ok is
// false for any other line. A line naming no prompt of a connected server
// is an error, not text for the model.
func (rt *wiring) expandMCPPrompt(ctx context.Context, line string) (e mcptool.Expansion, ok bool, err error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, mcpPromptPrefix) {
		return e, false, nil
	}
	command, rest, _ := strings.Cut(strings.TrimPrefix(line, "/"), " ")
	command, more, _ := strings.Cut(command, "\n")
	rest = strings.TrimSpace(more + " " + rest)
	var p mcptool.Prompt
	found := false
	if rt.mcp != nil {
		p, found = rt.mcp.FindPrompt(command)
	}
	if !found {
		return e, true, usageErr("no MCP prompt /%s; `harness9 mcp list` shows the prompts of the connected servers", command)
	}
	args, err := p.ParseArgs(rest)
	if err != nil {
		return e, true, usageErr("/%s: %v", command, err)
	}
	ctx, cancel := context.WithTimeout(ctx, mcpPromptTimeout)
	defer cancel()
	e, err = rt.mcp.GetPrompt(ctx, p, args)
	if err != nil {
		return e, true, withCode(ExitError, err)
	}
	return e, true, nil
}

// resources is what @server:uri mentions read, nil without MCP servers.
func (rt *wiring) resources() mention.Resources {
	if rt.mcp == nil {
		return nil
	}
	return rt.mcp
}
