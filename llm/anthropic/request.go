package anthropic

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/reqcache"
)

// The request body is built here with encoding/json rather than through the
// SDK's parameter types: the SDK re-encodes the whole history on every
// call, which made a turn's cost grow with the session. Each message's
// content blocks and each tool definition are encoded once (see reqcache)
// and the body is assembled from those pieces; the SDK still sends it,
// streams, and reports errors.

// blocks is one llm.Message as Messages API content blocks, each a JSON
// object, and the role they are sent under.
type blocks struct {
	user bool
	list [][]byte
	// thinking marks the entries of list that are this provider's own
	// thinking blocks: they are sent only while thinking is on (nil when
	// the message has none).
	thinking []bool
}

// count is how many of the message's blocks a request sends.
func (m *blocks) count(think bool) int {
	if think || m.thinking == nil {
		return len(m.list)
	}
	n := 0
	for _, t := range m.thinking {
		if !t {
			n++
		}
	}
	return n
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type redactedThinkingBlock struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   []any  `json:"content,omitempty"` // textBlock and imageBlock
	IsError   bool   `json:"is_error,omitempty"`
}

type imageBlock struct {
	Type   string      `json:"type"`
	Source imageSource `json:"source"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"` // encoding/json writes base64
}

func newImageBlock(im llm.Image) imageBlock {
	return imageBlock{Type: "image", Source: imageSource{Type: "base64", MediaType: im.MediaType, Data: im.Data}}
}

type wireTool struct {
	Name        string                     `json:"name"`
	Description string                     `json:"description,omitempty"`
	InputSchema map[string]json.RawMessage `json:"input_schema"`
}

// cacheControl marks a cache breakpoint; it is spliced into the last
// member of an already encoded object.
const cacheControl = `,"cache_control":{"type":"ephemeral"}}`

// body encodes a provider-neutral request as a streaming Messages body.
// The Messages API wants alternating user/assistant turns, so tool results
// (and any user text after them) between two assistant messages are merged
// into one user message, tool_result blocks in call order. With prompt
// caching, the system prompt, the last tool and the newest message's last
// block are cache breakpoints (3 of the 4 the API allows), so that each
// turn reads the previous turn's prefix from the prompt cache.
//
// With extended thinking (req.Effort, see thinkingBudget) the request asks
// for a thinking budget and carries this provider's thinking blocks back
// in their places; otherwise it carries none, which the API allows.
func (p *Provider) body(req llm.Request) (*reqcache.Body, bool, error) {
	call, i, err := p.msgCache.Open(req.Messages, req.Unchanged, p.encodeBlocks)
	if err != nil {
		return nil, false, fmt.Errorf("message %d: %w", i, err)
	}
	defer call.Close()
	tools, err := p.toolCache.Encode(req.Tools, encodeTool)
	if err != nil {
		return nil, false, err
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.maxTokens
	}
	budget := p.thinkingBudget(req.Effort)
	think := budget > 0 && thinkingAllowed(req.Messages, call)
	if think {
		// The budget is part of max_tokens: the answer keeps its room.
		maxTokens += budget
	}
	// size is called only when the body is built afresh: a resumed one
	// does not look at the messages it keeps.
	size := func() int {
		size := 256 + len(req.Model) + 2*len(req.System)
		for i := range call.Len() {
			for _, b := range call.At(i).list {
				size += len(b) + 1
			}
			size += 32
		}
		for _, t := range tools {
			size += len(t) + len(cacheControl)
		}
		return size
	}
	last := -1 // the last message with blocks
	for i := call.Len() - 1; i >= 0; i-- {
		if m := call.At(i); m.count(think) > 0 {
			last = i
			break
		}
	}
	// The header: everything before the conversation's first block.
	head := make([]byte, 0, 96+len(req.Model)+2*len(req.System))
	head = append(head, '{')
	if p.version != "" {
		head = append(head, `"anthropic_version":`...)
		head = reqcache.AppendString(head, p.version)
		head = append(head, ',')
	}
	head = append(head, `"stream":true`...)
	if p.vertex == nil { // Vertex names the model in the URL
		head = append(head, `,"model":`...)
		head = reqcache.AppendString(head, req.Model)
	}
	head = append(head, `,"max_tokens":`...)
	head = strconv.AppendInt(head, int64(maxTokens), 10)
	if think {
		// In the header: a body with thinking frames its messages
		// differently, so it never resumes one without.
		head = append(head, `,"thinking":{"type":"enabled","budget_tokens":`...)
		head = strconv.AppendInt(head, int64(budget), 10)
		head = append(head, '}')
	}
	if req.System != "" {
		head = append(head, `,"system":[{"type":"text","text":`...)
		head = reqcache.AppendString(head, req.System)
		if p.cache {
			head = append(head, cacheControl[:len(cacheControl)-1]...)
		}
		head = append(head, `}]`...)
	}
	if last >= 0 {
		// Without any block there is no "messages", as the SDK did.
		head = append(head, `,"messages":[`...)
	}
	// A resumed body ends before the last message with blocks: that
	// message's last block carries the cache marker.
	build, b, at := call.Start(head, max(last, 0), 0, size)
	if last >= 0 {
		b = appendMessages(b, build, call, at, last, p.cache, think)
	}
	if len(tools) > 0 {
		b = append(b, `,"tools":[`...)
		for i, t := range tools {
			if i > 0 {
				b = append(b, ',')
			}
			if p.cache && i == len(tools)-1 {
				b = appendMarked(b, t)
			} else {
				b = append(b, t...)
			}
		}
		b = append(b, ']')
	}
	return build.Finish(append(b, '}')), think, nil
}

// thinkingAllowed reports whether a request may turn thinking on. The API
// wants the newest assistant message, when tool results follow it, to
// start with its thinking; one made while thinking was off, or by another
// provider, has none, so thinking waits for the next prompt.
func thinkingAllowed(hist []llm.Message, msgs *reqcache.Call[blocks]) bool {
	results := false
	for i := len(hist) - 1; i >= 0; i-- {
		switch hist[i].Role {
		case llm.RoleTool:
			results = true
		case llm.RoleAssistant:
			if !results || len(hist[i].ToolCalls) == 0 {
				return true
			}
			t := msgs.At(i).thinking
			return len(t) > 0 && t[0]
		}
	}
	return true
}

// Framing states of appendMessages at a Mark.
const (
	stateOpen uint8 = 1 << iota // a message is open: its content list goes on
	stateUser                   // the open message is the user's
)

// appendMessages appends the messages from at.N on (their framing state at
// at.State) and closes "messages", merging consecutive blocks of one role
// into one message and, when mark is set, marking the very last block
// (that of msgs[last]; never a thinking block, which the API does not let
// carry one). Thinking blocks are left out unless think is set. It marks a
// resumable point after every message before last.
func appendMessages(b []byte, build *reqcache.Build, msgs *reqcache.Call[blocks], at reqcache.Mark, last int, mark, think bool) []byte {
	open, user := at.State&stateOpen != 0, at.State&stateUser != 0
	for i := at.N; i < msgs.Len(); i++ {
		m := msgs.At(i)
		if m.count(think) > 0 {
			switch {
			case open && m.user == user:
				b = append(b, ',')
			case open:
				b = append(b, `]},`...)
				open = false
			}
			if !open {
				role := "assistant"
				if m.user {
					role = "user"
				}
				b = append(b, `{"role":"`+role+`","content":[`...)
				open, user = true, m.user
			}
			marked := -1
			if mark && i == last {
				marked = m.lastMarkable()
			}
			first := true
			for j, blk := range m.list {
				if m.thinking != nil && m.thinking[j] && !think {
					continue
				}
				if !first {
					b = append(b, ',')
				}
				first = false
				if j == marked {
					b = appendMarked(b, blk)
				} else {
					b = append(b, blk...)
				}
			}
		}
		if i < last {
			var state uint8
			if open {
				state |= stateOpen
			}
			if user {
				state |= stateUser
			}
			build.Mark(i+1, b, state)
		}
	}
	if open {
		b = append(b, `]}`...)
	}
	return append(b, ']')
}

// lastMarkable is the index of the last block that is not thinking, -1
// if none.
func (m *blocks) lastMarkable() int {
	for j := len(m.list) - 1; j >= 0; j-- {
		if m.thinking == nil || !m.thinking[j] {
			return j
		}
	}
	return -1
}

// appendMarked appends the encoded object obj with a cache_control member.
func appendMarked(b, obj []byte) []byte {
	return append(append(b, obj[:len(obj)-1]...), cacheControl...)
}

func (p *Provider) encodeBlocks(m llm.Message) (blocks, error) {
	var out blocks
	add := func(v any) error {
		enc, err := reqcache.Marshal(v)
		out.list = append(out.list, enc)
		if out.thinking != nil {
			out.thinking = append(out.thinking, false)
		}
		return err
	}
	// addThinking adds this provider's reasoning blocks made after n tool
	// calls, in their order.
	next := 0
	addThinking := func(n int) error {
		for ; next < len(m.ReasoningBlocks) && m.ReasoningBlocks[next].After <= n; next++ {
			rb := m.ReasoningBlocks[next]
			var v any
			switch {
			case rb.Provider != p.name:
				continue
			case rb.Type == "thinking":
				v = thinkingBlock{"thinking", rb.Text, rb.Signature}
			case rb.Type == "redacted_thinking":
				v = redactedThinkingBlock{"redacted_thinking", rb.Data}
			default:
				continue
			}
			enc, err := reqcache.Marshal(v)
			if err != nil {
				return err
			}
			if out.thinking == nil {
				out.thinking = make([]bool, len(out.list), len(out.list)+1)
			}
			out.list, out.thinking = append(out.list, enc), append(out.thinking, true)
		}
		return nil
	}
	var err error
	switch m.Role {
	case llm.RoleUser:
		out.user = true
		// Images before the text, as Anthropic's vision guide advises.
		for _, im := range m.Images {
			if err == nil {
				err = add(newImageBlock(im))
			}
		}
		if m.Content != "" && err == nil { // the API rejects empty text blocks
			err = add(textBlock{"text", m.Content})
		}
	case llm.RoleTool:
		out.user = true
		r := toolResultBlock{Type: "tool_result", ToolUseID: m.ToolCallID, IsError: m.IsError}
		if m.Content != "" {
			r.Content = append(r.Content, textBlock{"text", m.Content})
		}
		for _, im := range m.Images {
			r.Content = append(r.Content, newImageBlock(im))
		}
		err = add(r)
	case llm.RoleAssistant:
		// Thinking first, then the text, then each call followed by the
		// thinking that came after it (interleaved thinking). Reasoning
		// text without a block (another provider's) is not sent.
		if m.Content != "" || len(m.ToolCalls) > 0 {
			err = addThinking(0)
		}
		if m.Content != "" && err == nil {
			err = add(textBlock{"text", m.Content})
		}
		for k, c := range m.ToolCalls {
			if err == nil {
				err = add(toolUseBlock{"tool_use", c.ID, c.Name, toolInput(c.Input)})
			}
			if err == nil {
				err = addThinking(k + 1)
			}
		}
	default:
		return blocks{}, fmt.Errorf("unknown role %q", m.Role)
	}
	return out, err
}

// toolInput returns a call's input as the JSON object the API requires:
// empty or malformed input (which the model may have produced, and the
// registry already reported back) becomes {}.
func toolInput(raw json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return raw
}

// encodeTool encodes a definition with its schema as the API takes it: an
// object schema whose properties default to {} and whose "required" lists
// only names (as the SDK's ToolInputSchemaParam sent it).
func encodeTool(t llm.ToolDef) ([]byte, error) {
	schema := map[string]json.RawMessage{}
	if len(t.InputSchema) > 0 {
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return nil, fmt.Errorf("tool %s: input schema is not a JSON object: %w", t.Name, err)
		}
		if schema == nil { // "null"
			schema = map[string]json.RawMessage{}
		}
	}
	schema["type"] = json.RawMessage(`"object"`)
	switch p, ok := schema["properties"]; {
	case !ok:
		schema["properties"] = json.RawMessage(`{}`)
	case string(p) == "null":
		delete(schema, "properties")
	}
	if raw, ok := schema["required"]; ok {
		delete(schema, "required")
		var list []any
		_ = json.Unmarshal(raw, &list) // anything but a list names nothing
		var names []string
		for _, r := range list {
			if s, ok := r.(string); ok {
				names = append(names, s)
			}
		}
		if len(names) > 0 {
			enc, err := json.Marshal(names)
			if err != nil {
				return nil, err
			}
			schema["required"] = enc
		}
	}
	return reqcache.Marshal(wireTool{Name: t.Name, Description: t.Description, InputSchema: schema})
}
