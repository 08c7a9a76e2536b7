package mcptool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/picture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt is one prompt of a server, called as the slash command
// "/" + Command (mcp__<server>__<prompt>, named like tools).
type Prompt struct {
	Server      string
	Name        string // the server's own name for it
	Command     string
	Title       string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one argument of a Prompt.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// Usage is how the prompt is called: "/mcp__s__p <city> [state]".
func (p Prompt) Usage() string {
	var b strings.Builder
	b.WriteString("/" + p.Command)
	for _, a := range p.Arguments {
		if a.Required {
			fmt.Fprintf(&b, " <%s>", a.Name)
		} else {
			fmt.Fprintf(&b, " [%s]", a.Name)
		}
	}
	return b.String()
}

// maxPrompts bounds the prompts listed from one server.
const maxPrompts = 500

// listPrompts lists the prompts of a server that offers them.
func listPrompts(ctx context.Context, server string, session *mcp.ClientSession) ([]Prompt, error) {
	if res := session.InitializeResult(); res == nil || res.Capabilities == nil || res.Capabilities.Prompts == nil {
		return nil, nil
	}
	var out []Prompt
	for p, err := range session.Prompts(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing prompts: %w", err)
		}
		pr := Prompt{Server: server, Name: p.Name, Command: Name(server, p.Name), Title: p.Title, Description: oneLine(p.Description, maxDescription)}
		for _, a := range p.Arguments {
			if a != nil {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: oneLine(a.Description, 300), Required: a.Required})
			}
		}
		if out = append(out, pr); len(out) >= maxPrompts {
			break
		}
	}
	return out, nil
}

// Prompts returns the prompts of every connected server, in server order;
// a server whose list changed is listed again.
func (m *Manager) Prompts() []Prompt {
	var out []Prompt
	for _, s := range m.servers {
		if s.err != nil {
			continue
		}
		s.mu.Lock()
		ok := s.promptsOK
		s.mu.Unlock()
		if !ok {
			ctx, cancel := context.WithTimeout(m.ctx, m.opts.timeout)
			list, err := listPrompts(ctx, s.name, s.session)
			cancel()
			if err == nil {
				s.mu.Lock()
				s.prompts, s.promptsOK = list, true
				s.mu.Unlock()
			}
		}
		s.mu.Lock()
		out = append(out, s.prompts...)
		s.mu.Unlock()
	}
	return out
}

// FindPrompt returns the prompt called as "/"+command.
func (m *Manager) FindPrompt(command string) (Prompt, bool) {
	for _, p := range m.Prompts() {
		if p.Command == command {
			return p, true
		}
	}
	return Prompt{}, false
}

// ParseArgs maps the words typed after a prompt's command to its
// arguments: name=value sets an argument by name, other words fill the
// remaining arguments in order, the last one taking the rest of the line.
// Words may be quoted ("New York").
func (p Prompt) ParseArgs(line string) (map[string]string, error) {
	words, err := splitWords(line)
	if err != nil {
		return nil, err
	}
	args := map[string]string{}
	var positional []string
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && slices.ContainsFunc(p.Arguments, func(a PromptArgument) bool { return a.Name == k }) {
			args[k] = v
			continue
		}
		positional = append(positional, w)
	}
	var open []string
	for _, a := range p.Arguments {
		if _, set := args[a.Name]; !set {
			open = append(open, a.Name)
		}
	}
	if len(positional) > 0 && len(open) == 0 {
		return nil, fmt.Errorf("too many arguments; usage: %s", p.Usage())
	}
	for i, w := range positional {
		if i >= len(open)-1 {
			last := open[len(open)-1]
			args[last] = strings.Join(positional[i:], " ")
			break
		}
		args[open[i]] = w
	}
	var missing []string
	for _, a := range p.Arguments {
		if _, set := args[a.Name]; a.Required && !set {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing %s; usage: %s", strings.Join(missing, ", "), p.Usage())
	}
	return args, nil
}

// splitWords splits s at spaces, keeping "quoted" and 'quoted' words
// whole.
func splitWords(s string) ([]string, error) {
	var out []string
	var b strings.Builder
	in, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if in {
		out = append(out, b.String())
	}
	return out, nil
}

// Expansion is a prompt (or a resource) made into what the user sends:
// text, pictures, and notes for the person about what was left out.
type Expansion struct {
	Text   string
	Images []llm.Image
	Notes  []string
}

// GetPrompt fetches p with args from its server and renders its messages
// as one user prompt: texts joined (labelled by role when the server
// included the assistant's side), embedded text resources fenced, images
// checked by the picture package, anything else described.
func (m *Manager) GetPrompt(ctx context.Context, p Prompt, args map[string]string) (Expansion, error) {
	s, ok := m.connected(p.Server)
	if !ok {
		return Expansion{}, fmt.Errorf("MCP server %s is not connected", p.Server)
	}
	res, err := s.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
	if err != nil {
		return Expansion{}, fmt.Errorf("MCP server %s, prompt %s: %w", p.Server, p.Name, err)
	}
	labels := slices.ContainsFunc(res.Messages, func(msg *mcp.PromptMessage) bool { return msg != nil && msg.Role != "user" })
	var e Expansion
	var parts []string
	for _, msg := range res.Messages {
		if msg == nil || msg.Content == nil {
			continue
		}
		text := e.content(msg.Content)
		if labels {
			text = fmt.Sprintf("[%s]\n%s", msg.Role, text)
		}
		parts = append(parts, text)
	}
	e.Text = strings.Join(parts, "\n\n")
	if strings.TrimSpace(e.Text) == "" && len(e.Images) == 0 {
		return e, errors.New("the prompt came back empty")
	}
	return e, nil
}

// content renders one content block, adding its picture to e.
func (e *Expansion) content(c mcp.Content) string {
	switch c := c.(type) {
	case *mcp.TextContent:
		return c.Text
	case *mcp.ImageContent:
		img, err := picture.Prepare(c.Data, fmt.Sprintf("image %d", len(e.Images)+1))
		if err != nil {
			e.Notes = append(e.Notes, fmt.Sprintf("an image of the prompt was left out: %v", err))
			return "[image left out]"
		}
		e.Images = append(e.Images, img)
		return fmt.Sprintf("[image %d attached]", len(e.Images))
	case *mcp.EmbeddedResource:
		if c.Resource == nil {
			return ""
		}
		if c.Resource.Blob == nil {
			return fenced("resource", c.Resource.URI, c.Resource.Text)
		}
	}
	return renderContent(c)
}

// fenced puts text in a <tag uri=...> block, in a code fence longer than
// any run of backticks in it, so that the text cannot end its block and
// pass its own words as the user's.
func fenced(tag, uri, text string) string {
	run, longest := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fmt.Sprintf("<%s uri=%q>\n%s\n%s%s\n</%s>", tag, uri, fence, text, fence, tag)
}
