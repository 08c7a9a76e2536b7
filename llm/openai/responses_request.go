package openai

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/reqcache"
)

// The Responses API's request body, built like the Chat Completions one
// (see request.go): each message's input items are encoded once and a body
// starts from the previous one. The request is stateless (store=false):
// the whole conversation goes every time, a reasoning model's reasoning
// items included, carried as the encrypted content the API returned.

// ResponsesOnly reports whether OpenAI serves model only on the Responses
// API: the pro models (o1-pro, o3-pro, gpt-5-pro ...), the codex models,
// deep research and computer use.
func ResponsesOnly(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return strings.Contains(m, "codex") || strings.Contains(m, "-pro") ||
		strings.Contains(m, "deep-research") || strings.HasPrefix(m, "computer-use")
}

// ReasoningModel reports whether model is one of OpenAI's reasoning models
// (o1, o3, o4, gpt-5 and later, codex, gpt-oss), whose reasoning items the
// Responses wire asks for and carries across calls.
func ReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if strings.Contains(m, "-chat") {
		return false // gpt-5-chat-latest answers without reasoning
	}
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-oss", "codex"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return strings.Contains(m, "codex")
}

// The input items, as the API takes them.
type respUserMessage struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content any    `json:"content"` // a string, or []respPart with images
}

type respPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

type respOutputMessage struct {
	Type    string       `json:"type"`
	Role    string       `json:"role"`
	Content []respOutput `json:"content"`
}

type respOutput struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type respCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type respCallOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output any    `json:"output"` // a string, or []respPart with images
}

type respTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// responsesBody encodes a request as a streaming Responses body: the
// system prompt as instructions, the messages as input items, tools as
// non-strict functions (harness9's schemas are not written for strict
// mode), and for reasoning models the effort, a summary to show and the
// encrypted reasoning to carry.
func (p *Provider) responsesBody(req llm.Request) (*reqcache.Body, error) {
	call, i, err := p.itemCache.Open(req.Messages, req.Unchanged, p.encodeItems)
	if err != nil {
		return nil, fmt.Errorf("message %d: %w", i, err)
	}
	defer call.Close()
	tools, err := p.rtoolCache.Encode(req.Tools, encodeResponsesTool)
	if err != nil {
		return nil, err
	}
	n := call.Len()
	// size is called only when the body is built afresh.
	size := func() int {
		size := 256 + len(req.Model) + 2*len(req.System)
		for i := range n {
			size += len(call.At(i)) + 1
		}
		for _, t := range tools {
			size += len(t) + 1
		}
		return size
	}
	head := append(make([]byte, 0, 96+len(req.Model)+2*len(req.System)), `{"model":`...)
	head = reqcache.AppendString(head, req.Model)
	head = append(head, `,"stream":true,"store":false`...)
	if req.System != "" {
		head = append(head, `,"instructions":`...)
		head = reqcache.AppendString(head, req.System)
	}
	head = append(head, `,"input":[`...)
	build, b, at := call.Start(head, n, 0, size)
	sep := at.State == 1
	for i := at.N; i < n; i++ {
		if it := call.At(i); len(it) > 0 {
			if sep {
				b = append(b, ',')
			}
			b, sep = append(b, it...), true
		}
		var state uint8
		if sep {
			state = 1
		}
		build.Mark(i+1, b, state)
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
	if req.Effort != llm.EffortDefault || ReasoningModel(req.Model) {
		// Without the encrypted content a stateless request could not
		// send a reasoning item back.
		b = append(b, `,"include":["reasoning.encrypted_content"]`...)
	}
	if req.Effort != llm.EffortDefault {
		b = append(b, `,"reasoning":{"effort":`...)
		b = reqcache.AppendString(b, string(req.Effort))
		b = append(b, `,"summary":"auto"}`...)
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = p.maxTokens
	}
	if maxTokens > 0 {
		b = append(b, `,"max_output_tokens":`...)
		b = strconv.AppendInt(b, int64(maxTokens), 10)
	}
	return build.Finish(append(b, '}')), nil
}

// encodeItems encodes one message as its input items, joined by commas
// (none for an assistant message with neither text nor calls).
func (p *Provider) encodeItems(m llm.Message) ([]byte, error) {
	var out []byte
	add := func(v any) error {
		enc, err := reqcache.Marshal(v)
		if err != nil {
			return err
		}
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(out, enc...)
		return nil
	}
	switch m.Role {
	case llm.RoleUser:
		return out, add(respUserMessage{Type: "message", Role: "user", Content: respContent(m.Content, m.Images)})
	case llm.RoleTool:
		return out, add(respCallOutput{Type: "function_call_output", CallID: m.ToolCallID, Output: respContent(m.Content, m.Images)})
	case llm.RoleAssistant:
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	if m.Content == "" && len(m.ToolCalls) == 0 {
		return nil, nil
	}
	// The reasoning items go where the model made them: before the text,
	// or after the call they followed.
	next := 0
	reasoning := func(n int) {
		for ; next < len(m.ReasoningBlocks) && m.ReasoningBlocks[next].After <= n; next++ {
			rb := m.ReasoningBlocks[next]
			if rb.Provider == p.name && rb.Type == "reasoning" && json.Valid([]byte(rb.Data)) {
				if len(out) > 0 {
					out = append(out, ',')
				}
				out = append(out, rb.Data...)
			}
		}
	}
	reasoning(0)
	if m.Content != "" {
		if err := add(respOutputMessage{Type: "message", Role: "assistant", Content: []respOutput{{"output_text", m.Content}}}); err != nil {
			return nil, err
		}
	}
	for k, c := range m.ToolCalls {
		args := string(c.Input)
		if len(c.Input) == 0 {
			args = "{}"
		}
		if err := add(respCall{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: args}); err != nil {
			return nil, err
		}
		reasoning(k + 1)
	}
	return out, nil
}

// respContent is a message's or a tool output's content: the text alone,
// or input_text and input_image parts.
func respContent(text string, images []llm.Image) any {
	if len(images) == 0 {
		return text
	}
	parts := make([]respPart, 0, len(images)+1)
	if text != "" {
		parts = append(parts, respPart{Type: "input_text", Text: text})
	}
	for _, im := range images {
		parts = append(parts, respPart{Type: "input_image", ImageURL: llm.DataURL(im)})
	}
	return parts
}

func encodeResponsesTool(t llm.ToolDef) ([]byte, error) {
	params, err := toolParameters(t)
	if err != nil {
		return nil, err
	}
	return reqcache.Marshal(respTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: params})
}
