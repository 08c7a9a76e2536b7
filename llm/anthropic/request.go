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
func (p *Provider) body(req llm.Request) (*reqcache.Body, error) {
	msgs, ids, i, err := p.msgCache.EncodeIDs(req.Messages, encodeBlocks, p.prefix.IDs())
	if err != nil {
		return nil, fmt.Errorf("message %d: %w", i, err)
	}
	defer p.msgCache.Recycle(msgs)
	tools, err := p.toolCache.Encode(req.Tools, encodeTool)
	if err != nil {
		return nil, err
	}
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.maxTokens
	}
	size := 256 + len(req.Model) + 2*len(req.System)
	for _, m := range msgs {
		for _, b := range m.list {
			size += len(b) + 1
		}
		size += 32
	}
	for _, t := range tools {
		size += len(t) + len(cacheControl)
	}
	last := -1 // the last message with blocks
	for i := len(msgs) - 1; i >= 0; i-- {
		if len(msgs[i].list) > 0 {
			last = i
			break
		}
	}
	// The header: everything before the conversation's first block.
	head := make([]byte, 0, 96+len(req.Model)+2*len(req.System))
	head = append(head, `{"stream":true,"model":`...)
	head = reqcache.AppendString(head, req.Model)
	head = append(head, `,"max_tokens":`...)
	head = strconv.AppendInt(head, int64(maxTokens), 10)
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
	build, b, at := p.prefix.Start(head, ids, max(last, 0), 0, size)
	if last >= 0 {
		b = appendMessages(b, build, msgs, at, last, p.cache)
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
	return build.Finish(append(b, '}')), nil
}

// Framing states of appendMessages at a Mark.
const (
	stateOpen uint8 = 1 << iota // a message is open: its content list goes on
	stateUser                   // the open message is the user's
)

// appendMessages appends the messages from at.N on (their framing state at
// at.State) and closes "messages", merging consecutive blocks of one role
// into one message and, when mark is set, marking the very last block
// (that of msgs[last]). It marks a resumable point after every message
// before last.
func appendMessages(b []byte, build *reqcache.Build, msgs []blocks, at reqcache.Mark, last int, mark bool) []byte {
	open, user := at.State&stateOpen != 0, at.State&stateUser != 0
	for i := at.N; i < len(msgs); i++ {
		m := msgs[i]
		if len(m.list) > 0 {
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
			for j, blk := range m.list {
				if j > 0 {
					b = append(b, ',')
				}
				if mark && i == last && j == len(m.list)-1 {
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

// appendMarked appends the encoded object obj with a cache_control member.
func appendMarked(b, obj []byte) []byte {
	return append(append(b, obj[:len(obj)-1]...), cacheControl...)
}

func encodeBlocks(m llm.Message) (blocks, error) {
	var out blocks
	add := func(v any) error {
		enc, err := reqcache.Marshal(v)
		out.list = append(out.list, enc)
		return err
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
		// Reasoning is not sent back: thinking blocks need the signature
		// the API issued, which harness9 does not keep.
		if m.Content != "" {
			err = add(textBlock{"text", m.Content})
		}
		for _, c := range m.ToolCalls {
			if err == nil {
				err = add(toolUseBlock{"tool_use", c.ID, c.Name, toolInput(c.Input)})
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
