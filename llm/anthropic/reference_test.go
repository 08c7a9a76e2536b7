package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/harness9/harness9/llm"
)

// referenceParams is the request building harness9 used before it encoded
// request bodies itself: the SDK's own parameter types, re-encoded whole
// on every call. The tests keep it as the reference the new encoder must
// agree with.
//
// It converts a provider-neutral request to Messages parameters. The
// Messages API wants alternating user/assistant turns, so tool results (and
// any user text after them) between two assistant messages are merged into
// one user message, tool_result blocks in call order.
func (p *Provider) referenceParams(req llm.Request) (sdk.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = p.maxTokens
	}
	params := sdk.MessageNewParams{Model: req.Model, MaxTokens: int64(maxTokens)}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	msgs, err := referenceMessages(req.Messages)
	if err != nil {
		return params, err
	}
	params.Messages = msgs
	for _, t := range req.Tools {
		tool, err := referenceToolParam(t)
		if err != nil {
			return params, err
		}
		params.Tools = append(params.Tools, tool)
	}
	if p.cache {
		referenceCacheBreakpoints(&params)
	}
	return params, nil
}

func referenceMessages(in []llm.Message) ([]sdk.MessageParam, error) {
	var out []sdk.MessageParam
	// add appends blocks to the last message when it has the same role.
	add := func(user bool, blocks ...sdk.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 {
			last := out[n-1]
			if user && last.OfUser != nil {
				last.OfUser.Content = append(last.OfUser.Content, blocks...)
				return
			}
			if !user && last.OfAssistant != nil {
				last.OfAssistant.Content = append(last.OfAssistant.Content, blocks...)
				return
			}
		}
		if user {
			out = append(out, sdk.NewUserMessage(blocks...))
		} else {
			out = append(out, sdk.NewAssistantMessage(blocks...))
		}
	}
	for i, m := range in {
		switch m.Role {
		case llm.RoleUser:
			var blocks []sdk.ContentBlockParamUnion
			for _, im := range m.Images {
				blocks = append(blocks, sdk.NewImageBlockBase64(im.MediaType, base64.StdEncoding.EncodeToString(im.Data)))
			}
			if m.Content != "" { // the API rejects empty text blocks
				blocks = append(blocks, sdk.NewTextBlock(m.Content))
			}
			add(true, blocks...)
		case llm.RoleTool:
			add(true, referenceToolResult(m))
		case llm.RoleAssistant:
			// Reasoning is not sent back: thinking blocks need the signature
			// the API issued, which harness9 does not keep.
			var blocks []sdk.ContentBlockParamUnion
			if m.Content != "" {
				blocks = append(blocks, sdk.NewTextBlock(m.Content))
			}
			for _, c := range m.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, referenceToolInput(c.Input), c.Name))
			}
			add(false, blocks...)
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

func referenceToolResult(m llm.Message) sdk.ContentBlockParamUnion {
	r := sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID}
	if m.Content != "" {
		r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: m.Content}}}
	}
	for _, im := range m.Images {
		r.Content = append(r.Content, sdk.ToolResultBlockParamContentUnion{
			OfImage: sdk.NewImageBlockBase64(im.MediaType, base64.StdEncoding.EncodeToString(im.Data)).OfImage})
	}
	if m.IsError {
		r.IsError = sdk.Bool(true)
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &r}
}

// toolInput returns a call's input as the JSON object the API requires:
// empty or malformed input (which the model may have produced, and the
// registry already reported back) becomes {}.
func referenceToolInput(raw json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return raw
}

func referenceToolParam(t llm.ToolDef) (sdk.ToolUnionParam, error) {
	var schema map[string]any
	if len(t.InputSchema) > 0 {
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return sdk.ToolUnionParam{}, fmt.Errorf("tool %s: input schema is not a JSON object: %w", t.Name, err)
		}
	}
	var in sdk.ToolInputSchemaParam
	in.Properties = map[string]any{}
	for k, v := range schema {
		switch k {
		case "type":
		case "properties":
			in.Properties = v
		case "required":
			for _, r := range asSlice(v) {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		default:
			if in.ExtraFields == nil {
				in.ExtraFields = map[string]any{}
			}
			in.ExtraFields[k] = v
		}
	}
	tool := sdk.ToolUnionParamOfTool(in, t.Name)
	if t.Description != "" {
		tool.OfTool.Description = sdk.String(t.Description)
	}
	return tool, nil
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// addCacheBreakpoints marks the system prompt, the last tool and the newest
// message's last block as cache breakpoints (3 of the 4 the API allows), so
// that each turn reads the previous turn's prefix from the prompt cache.
func referenceCacheBreakpoints(params *sdk.MessageNewParams) {
	if n := len(params.System); n > 0 {
		params.System[n-1].CacheControl = sdk.NewCacheControlEphemeralParam()
	}
	if n := len(params.Tools); n > 0 {
		if cc := params.Tools[n-1].GetCacheControl(); cc != nil {
			*cc = sdk.NewCacheControlEphemeralParam()
		}
	}
	if n := len(params.Messages); n > 0 {
		last := params.Messages[n-1]
		var blocks []sdk.ContentBlockParamUnion
		switch {
		case last.OfUser != nil:
			blocks = last.OfUser.Content
		case last.OfAssistant != nil:
			blocks = last.OfAssistant.Content
		}
		if k := len(blocks); k > 0 {
			if cc := blocks[k-1].GetCacheControl(); cc != nil {
				*cc = sdk.NewCacheControlEphemeralParam()
			}
		}
	}
}
