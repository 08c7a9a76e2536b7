package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/harness9/harness9/tool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitor answers a server's request for the user's input when no tool
// call of that server is running with someone to ask (tool.AskerFrom of
// its context): a request between calls, or every request of a headless
// program. See WithElicitation.
type Elicitor func(ctx context.Context, server string, q tool.Question) (tool.Answer, error)

// WithElicitation sets who answers requests for input that no running
// call's user can (see Elicitor). Without it they are declined.
func WithElicitation(e Elicitor) Option { return func(o *options) { o.elicit = e } }

// elicit answers one elicitation/create request of s: the user of the
// server's running call is asked, else the Elicitor, else it is declined.
// A question nobody answers (the run ended) is cancelled.
func (m *Manager) elicit(ctx context.Context, s *server, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	q, err := question(s, p)
	if err != nil {
		return nil, err
	}
	var ans tool.Answer
	call := s.current()
	switch {
	case tool.AskerFrom(ctx) != nil:
		// Multi round-trip requests (protocol 2026-07-28) are fulfilled in
		// the call's own context.
		ans, err = tool.AskerFrom(ctx)(ctx, q)
	case call != nil && call.ask != nil:
		// A request the server sent while serving the call: the question
		// lives as long as both the call and the request.
		actx, cancel := context.WithCancel(call.ctx)
		stop := context.AfterFunc(ctx, cancel)
		ans, err = call.ask(actx, q)
		stop()
		cancel()
	case m.opts.elicit != nil:
		ans, err = m.opts.elicit(ctx, s.name, q)
	default:
		ans = tool.Answer{Action: tool.Decline}
	}
	if err != nil {
		return &mcp.ElicitResult{Action: string(tool.Cancel)}, nil
	}
	switch ans.Action {
	case tool.Accept:
		if q.URL != "" {
			return &mcp.ElicitResult{Action: string(tool.Accept)}, nil
		}
		content := make(map[string]any, len(ans.Values))
		for _, f := range q.Fields {
			if v, ok := ans.Values[f.Name]; ok {
				content[f.Name] = v
			}
		}
		return &mcp.ElicitResult{Action: string(tool.Accept), Content: content}, nil
	case tool.Cancel:
		return &mcp.ElicitResult{Action: string(tool.Cancel)}, nil
	}
	return &mcp.ElicitResult{Action: string(tool.Decline)}, nil
}

// question is p as a tool.Question.
func question(s *server, p *mcp.ElicitParams) (tool.Question, error) {
	q := tool.Question{From: "MCP server " + s.name, Message: p.Message, ReadOnly: s.readOnly()}
	if p.Mode == "url" || p.URL != "" {
		q.URL = p.URL
		return q, nil
	}
	fields, err := formFields(p.RequestedSchema)
	if err != nil {
		return q, fmt.Errorf("the requested schema cannot be shown as a form: %w", err)
	}
	q.Fields = fields
	return q, nil
}

// formSchema is the flat object schema of a form elicitation.
type formSchema struct {
	Properties map[string]formProperty `json:"properties"`
	Required   []string                `json:"required"`
}

type formProperty struct {
	Type        string      `json:"type"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Format      string      `json:"format"`
	Default     any         `json:"default"`
	Enum        []any       `json:"enum"`
	EnumNames   []string    `json:"enumNames"`
	OneOf       []constItem `json:"oneOf"`
	AnyOf       []constItem `json:"anyOf"`
	Items       *struct {
		Enum  []any       `json:"enum"`
		OneOf []constItem `json:"oneOf"`
		AnyOf []constItem `json:"anyOf"`
	} `json:"items"`
	Minimum   *float64 `json:"minimum"`
	Maximum   *float64 `json:"maximum"`
	MinLength *float64 `json:"minLength"`
	MaxLength *float64 `json:"maxLength"`
	MinItems  *float64 `json:"minItems"`
	MaxItems  *float64 `json:"maxItems"`
}

type constItem struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// formFields turns a requested schema into fields: required ones first,
// then by name (the wire's object has no order the SDK keeps).
func formFields(schema any) ([]tool.Field, error) {
	if schema == nil {
		return nil, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var fs formSchema
	if err := json.Unmarshal(raw, &fs); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(fs.Properties))
	for n := range fs.Properties {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(fs.Required, a), slices.Contains(fs.Required, b)
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	out := make([]tool.Field, 0, len(names))
	for _, n := range names {
		p := fs.Properties[n]
		f := tool.Field{Name: n, Title: p.Title, Description: p.Description, Format: p.Format,
			Required: slices.Contains(fs.Required, n), Default: p.Default, Min: p.Minimum, Max: p.Maximum}
		switch {
		case p.Type == "array":
			f.Kind, f.Min, f.Max = tool.FieldChoices, p.MinItems, p.MaxItems
			if p.Items != nil {
				f.Options = choiceOptions(p.Items.Enum, nil, append(p.Items.OneOf, p.Items.AnyOf...))
			}
			f.Default = stringList(p.Default)
		case len(p.Enum) > 0 || len(p.OneOf) > 0 || len(p.AnyOf) > 0:
			f.Kind = tool.FieldChoice
			f.Options = choiceOptions(p.Enum, p.EnumNames, append(p.OneOf, p.AnyOf...))
		case p.Type == "boolean":
			f.Kind = tool.FieldBoolean
		case p.Type == "number":
			f.Kind = tool.FieldNumber
		case p.Type == "integer":
			f.Kind = tool.FieldInteger
		case p.Type == "string" || p.Type == "":
			f.Kind, f.Min, f.Max = tool.FieldString, p.MinLength, p.MaxLength
		default:
			return nil, fmt.Errorf("field %q has type %q", n, p.Type)
		}
		if (f.Kind == tool.FieldChoice || f.Kind == tool.FieldChoices) && len(f.Options) == 0 {
			return nil, fmt.Errorf("field %q offers no values", n)
		}
		out = append(out, f)
	}
	return out, nil
}

// choiceOptions are a choice's values: an enum (with legacy enumNames labels) or
// const/title items.
func choiceOptions(enum []any, names []string, items []constItem) []tool.Option {
	var out []tool.Option
	for i, v := range enum {
		o := tool.Option{Value: fmt.Sprint(v), Label: fmt.Sprint(v)}
		if i < len(names) && names[i] != "" {
			o.Label = names[i]
		}
		out = append(out, o)
	}
	for _, it := range items {
		o := tool.Option{Value: fmt.Sprint(it.Const), Label: it.Title}
		if o.Label == "" {
			o.Label = o.Value
		}
		out = append(out, o)
	}
	return out
}

func stringList(v any) any {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		out = append(out, fmt.Sprint(x))
	}
	return out
}
