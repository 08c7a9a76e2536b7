package openai

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/reqcache"
)

// The request body is built here with encoding/json rather than through the
// SDK's parameter types: the SDK re-encodes the whole history on every
// call, which made a turn's cost grow with the session. Each message and
// tool definition is encoded once (see reqcache) and the body is assembled
// from those pieces; the SDK still sends it, streams, and reports errors.

// wireMessage is one Chat Completions input message.
type wireMessage struct {
	Role string `json:"role"`
	// Content is a string, or for a user message with images a list of
	// content parts.
	Content    any        `json:"content,omitempty"`
	ToolCallID *string    `json:"tool_call_id,omitempty"`
	ToolCalls  []wireCall `json:"tool_calls,omitempty"`
}

type wirePart struct {
	Type     string        `json:"type"`
	Text     *string       `json:"text,omitempty"`
	ImageURL *wireImageURL `json:"image_url,omitempty"`
}

type wireImageURL struct {
	URL string `json:"url"`
}

// encoded is one llm.Message on the wire. A tool result with images
// becomes a "tool" message (msg) and a user message carrying the images
// (after): Chat Completions tool messages hold text only. The user message
// is sent after the last of the consecutive tool messages, since the API
// wants every tool message of an assistant turn right after it.
type encoded struct {
	msg, after []byte
}

type wireCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// defaultParameters stands in for a tool without an input schema.
var defaultParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// body encodes a provider-neutral request as a streaming Chat Completions
// body: the system prompt as the first message, assistant tool calls, tool
// results as "tool" messages linked by tool_call_id, and usage reporting
// switched on.
func (p *Provider) body(req llm.Request) (*reqcache.Body, error) {
	call, i, err := p.msgCache.Open(req.Messages, req.Unchanged, encodeMessage)
	if err != nil {
		return nil, fmt.Errorf("message %d: %w", i, err)
	}
	defer call.Close()
	tools, err := p.toolCache.Encode(req.Tools, encodeTool)
	if err != nil {
		return nil, err
	}
	n := call.Len()
	size := func() int {
		size := 256 + len(req.Model) + 2*len(req.System)
		for i := range n {
			m := call.At(i)
			size += len(m.msg) + len(m.after) + 2
		}
		for _, t := range tools {
			size += len(t) + 1
		}
		return size
	}
	// The header: everything before the conversation's first message.
	head := append(make([]byte, 0, 64+len(req.Model)+2*len(req.System)), `{"stream":true,"model":`...)
	head = reqcache.AppendString(head, req.Model)
	head = append(head, `,"messages":[`...)
	var state0 uint8 // 1: a message was written, the next one needs a comma
	if req.System != "" {
		head = append(head, `{"role":"system","content":`...)
		head = reqcache.AppendString(head, req.System)
		head = append(head, '}')
		state0 = 1
	}
	build, b, at := call.Start(head, n, state0, size)
	sep := at.State == 1
	var pending [][]byte // images of tool results, sent after the tool messages
	for i := at.N; i < n; i++ {
		m := call.At(i)
		if sep {
			b = append(b, ',')
		}
		b, sep = append(b, m.msg...), true
		if m.after != nil {
			pending = append(pending, m.after)
		}
		if len(pending) == 0 {
			// The body so far depends on no later message: a later
			// request with these messages may resume here.
			build.Mark(i+1, b, 1)
			continue
		}
		if i+1 == n || req.Messages[i+1].Role != llm.RoleTool {
			for _, p := range pending {
				b = append(append(b, ','), p...)
			}
			pending = pending[:0]
		}
	}
	b = append(b, ']')
	if len(tools) > 0 {
		b = append(b, `,"tools":[`...)
		for i, t := range tools {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, t...)
		}
		b = append(b, ']')
	}
	b = append(b, `,"stream_options":{"include_usage":true}`...)
	if req.Effort != llm.EffortDefault {
		b = append(b, `,"reasoning_effort":`...)
		b = reqcache.AppendString(b, string(req.Effort))
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = p.maxTokens
	}
	if maxTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens; most compatible
		// servers only know max_tokens.
		if p.completionTokens {
			b = append(b, `,"max_completion_tokens":`...)
		} else {
			b = append(b, `,"max_tokens":`...)
		}
		b = strconv.AppendInt(b, int64(maxTokens), 10)
	}
	return build.Finish(append(b, '}')), nil
}

func encodeMessage(m llm.Message) (encoded, error) {
	w := wireMessage{Role: string(m.Role)}
	var out encoded
	switch m.Role {
	case llm.RoleUser:
		w.Content = userContent(m.Content, m.Images)
	case llm.RoleTool:
		w.Content, w.ToolCallID = &m.Content, &m.ToolCallID
		if len(m.Images) > 0 {
			note := fmt.Sprintf("The image%s returned by tool call %s:", plural(len(m.Images)), m.ToolCallID)
			after, err := reqcache.Marshal(wireMessage{Role: "user", Content: userContent(note, m.Images)})
			if err != nil {
				return out, err
			}
			out.after = after
		}
	case llm.RoleAssistant:
		// Reasoning is not sent back: DeepSeek rejects reasoning_content in
		// input messages, and OpenAI has no field for it.
		if m.Content != "" || len(m.ToolCalls) == 0 {
			w.Content = &m.Content
		}
		w.ToolCalls = make([]wireCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			wc := &w.ToolCalls[i]
			wc.ID, wc.Type, wc.Function.Name = c.ID, "function", c.Name
			wc.Function.Arguments = string(c.Input)
			if len(c.Input) == 0 {
				wc.Function.Arguments = "{}"
			}
		}
	default:
		return out, fmt.Errorf("unknown role %q", m.Role)
	}
	var err error
	out.msg, err = reqcache.Marshal(w)
	return out, err
}

// userContent is a user message's content: the text alone, or the text
// and the images as content parts, images as base64 data URLs.
func userContent(text string, images []llm.Image) any {
	if len(images) == 0 {
		return &text
	}
	parts := make([]wirePart, 0, len(images)+1)
	if text != "" {
		parts = append(parts, wirePart{Type: "text", Text: &text})
	}
	for _, im := range images {
		parts = append(parts, wirePart{Type: "image_url", ImageURL: &wireImageURL{URL: llm.DataURL(im)}})
	}
	return parts
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// toolParameters is a definition's input schema as both wires take it:
// an object schema, a default for none.
func toolParameters(t llm.ToolDef) (json.RawMessage, error) {
	params := defaultParameters
	if len(t.InputSchema) > 0 {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(t.InputSchema, &obj); err != nil {
			return nil, fmt.Errorf("tool %s: input schema is not a JSON object: %w", t.Name, err)
		}
		if obj != nil { // "null" means no schema; the encoder compacts the rest
			params = t.InputSchema
		}
	}
	return params, nil
}

func encodeTool(t llm.ToolDef) ([]byte, error) {
	params, err := toolParameters(t)
	if err != nil {
		return nil, err
	}
	w := wireTool{Type: "function"}
	w.Function.Name, w.Function.Description, w.Function.Parameters = t.Name, t.Description, params
	return reqcache.Marshal(w)
}
