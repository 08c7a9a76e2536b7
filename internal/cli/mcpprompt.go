package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/harness9/harness9/internal/mention"
	"github.com/harness9/harness9/internal/tui"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/tool/mcptool"
)

// mcpPromptTimeout bounds fetching one MCP prompt.
const mcpPromptTimeout = 30 * time.Second

// resourceListTimeout bounds listing the servers' resources for one
// completion.
const resourceListTimeout = 10 * time.Second

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

// attach prepares a prompt, after a custom command's expansion, as run
// and the TUI send it: a line calling an MCP prompt becomes the server's
// prompt (its pictures dropped, with a note, for a model without vision);
// otherwise the files and resources the prompt mentions with @ are
// appended. The server's text is not searched for mentions: only what the
// user typed attaches files. notes say what was attached or left out.
func (rt *wiring) attach(ctx context.Context, prompt string) (text string, images []llm.Image, notes []string, err error) {
	e, ok, err := rt.expandMCPPrompt(ctx, prompt)
	if err != nil {
		return "", nil, nil, err
	}
	if ok {
		images = e.Images
		if len(images) > 0 && !vision(rt.resolved) {
			e.Notes = append(e.Notes, fmt.Sprintf("the prompt's %d picture(s) were left out: %s does not accept images", len(images), rt.cfg.Model))
			images = nil
		}
		return e.Text, images, e.Notes, nil
	}
	if !strings.Contains(prompt, "@") {
		return prompt, nil, nil, nil
	}
	x := mention.ExpandAll(ctx, rt.ws, prompt, rt.resources(), vision(rt.resolved))
	if sum := mention.Summary(x.Report); sum != "" {
		notes = append(notes, sum)
	}
	return x.Text, x.Images, notes, nil
}

// tuiAttach is attach as the TUI's Options.Attach.
func (rt *wiring) tuiAttach(ctx context.Context, prompt string) (tui.Attachment, error) {
	text, images, notes, err := rt.attach(ctx, prompt)
	return tui.Attachment{Prompt: text, Images: images, Summary: strings.Join(notes, "\n")}, err
}

// resourceCompletion completes "@server:uri" from the connected servers'
// resources and templates (a template up to its first variable), off the
// TUI's loop.
func (rt *wiring) resourceCompletion(ctx context.Context) func(prefix string) []string {
	return func(prefix string) []string {
		if rt.mcp == nil {
			return nil
		}
		ctx, cancel := context.WithTimeout(ctx, resourceListTimeout)
		defer cancel()
		return mention.CompleteResources(rt.mcp.Resources(ctx), prefix)
	}
}
