package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/slashcmd"
	"github.com/harness9/harness9/internal/tui"
	"github.com/harness9/harness9/tool"
)

// discoverCommands finds the custom slash commands of c's workdir and data
// directory; files that cannot be used are reported to warn. The TUI's
// built-in commands are reserved in headless runs too, so "/name" means
// the same thing in both.
func discoverCommands(c *config.Config, project *tool.Workspace, warn func(msg string)) []slashcmd.Command {
	cmds, problems := slashcmd.Discover(project, c.Home, tui.BuiltinCommands())
	for _, p := range problems {
		warn(p.Error())
	}
	return cmds
}

// expandCommand turns a line calling a custom command into the prompt and
// run options to send; ok is false for any other line, which is sent as it
// is. note is for the person: a model the command asks for that this
// session's provider cannot serve.
func (rt *wiring) expandCommand(line string) (prompt string, o agent.RunOptions, note string, ok bool) {
	c, args := slashcmd.Match(rt.commands, line)
	if c == nil {
		return "", o, "", false
	}
	o = agent.RunOptions{AllowedTools: c.AllowedTools, Origin: "the /" + c.Name + " command"}
	if c.Model != "" {
		// /model may switch the provider of the engines opened next.
		rt.modelMu.Lock()
		providerName, current := rt.resolved.Name, rt.model
		rt.modelMu.Unlock()
		provider, model, err := config.SplitModel(c.Model)
		switch {
		case err != nil && !strings.Contains(c.Model, "/"):
			o.Model = c.Model // a bare model name: the session's provider
		case err == nil && provider == providerName:
			o.Model = model
		default:
			note = fmt.Sprintf("/%s asks for model %s, but this session's provider is %s; it runs on %s",
				c.Name, c.Model, providerName, current)
		}
	}
	return c.Expand(args), o, note, true
}

// tuiCommands are the custom commands as the TUI lists them.
func (rt *wiring) tuiCommands() []tui.CustomCommand {
	out := make([]tui.CustomCommand, 0, len(rt.commands))
	for _, c := range rt.commands {
		help := c.Description
		if help == "" {
			help = "custom command"
		}
		out = append(out, tui.CustomCommand{Name: "/" + c.Name, Args: c.ArgumentHint, Help: fmt.Sprintf("%s (%s)", help, c.Source)})
	}
	if rt.mcp == nil {
		return out
	}
	for _, p := range rt.mcp.Prompts() {
		if slices.ContainsFunc(out, func(c tui.CustomCommand) bool { return c.Name == "/"+p.Command }) {
			continue // a custom command of the same name wins, as in Expand
		}
		help := p.Description
		if help == "" {
			help = p.Title
		}
		if help == "" {
			help = "MCP prompt"
		}
		out = append(out, tui.CustomCommand{Name: "/" + p.Command, Args: strings.TrimSpace(strings.TrimPrefix(p.Usage(), "/"+p.Command)),
			Help: fmt.Sprintf("%s (MCP server %s)", help, p.Server)})
	}
	return out
}
