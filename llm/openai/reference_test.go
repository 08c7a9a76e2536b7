package openai

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/harness9/harness9/llm"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// referenceParams is the request building harness9 used before it encoded
// request bodies itself: the SDK's own parameter types, re-encoded whole
// on every call. The tests keep it as the reference the new encoder must
// agree with.
//
// It converts a provider-neutral request to Chat Completions parameters:
// the system prompt as the first message, assistant tool calls, tool results
// as "tool" messages linked by tool_call_id, and usage reporting switched on.
func (p *Provider) referenceParams(req llm.Request) (sdk.ChatCompletionNewParams, error) {
	params := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	if req.System != "" {
		params.Messages = append(params.Messages, sdk.SystemMessage(req.System))
	}
	var pending []sdk.ChatCompletionMessageParamUnion
	for i, m := range req.Messages {
		msg, err := referenceMessage(m)
		if err != nil {
			return params, fmt.Errorf("message %d: %w", i, err)
		}
		params.Messages = append(params.Messages, msg)
		if m.Role == llm.RoleTool && len(m.Images) > 0 {
			note := fmt.Sprintf("The image%s returned by tool call %s:", plural(len(m.Images)), m.ToolCallID)
			pending = append(pending, referenceUser(note, m.Images))
		}
		if i+1 == len(req.Messages) || req.Messages[i+1].Role != llm.RoleTool {
			params.Messages = append(params.Messages, pending...)
			pending = nil
		}
	}
	for _, t := range req.Tools {
		tool, err := referenceToolParam(t)
		if err != nil {
			return params, err
		}
		params.Tools = append(params.Tools, tool)
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = p.maxTokens
	}
	if maxTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens; most compatible
		// servers only know max_tokens.
		if p.name == "openai" {
			params.MaxCompletionTokens = sdk.Int(int64(maxTokens))
		} else {
			params.MaxTokens = sdk.Int(int64(maxTokens))
		}
	}
	return params, nil
}

func referenceMessage(m llm.Message) (sdk.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleUser:
		return referenceUser(m.Content, m.Images), nil
	case llm.RoleTool:
		return sdk.ToolMessage(m.Content, m.ToolCallID), nil
	case llm.RoleAssistant:
		// Reasoning is not sent back: DeepSeek rejects reasoning_content in
		// input messages, and OpenAI has no field for it.
		var a sdk.ChatCompletionAssistantMessageParam
		if m.Content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = sdk.String(m.Content)
		}
		for _, c := range m.ToolCalls {
			args := string(c.Input)
			if len(c.Input) == 0 {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
					ID: c.ID,
					Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name: c.Name, Arguments: args,
					},
				},
			})
		}
		return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return sdk.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q", m.Role)
}

func referenceUser(text string, images []llm.Image) sdk.ChatCompletionMessageParamUnion {
	if len(images) == 0 {
		return sdk.UserMessage(text)
	}
	var parts []sdk.ChatCompletionContentPartUnionParam
	if text != "" {
		parts = append(parts, sdk.TextContentPart(text))
	}
	for _, im := range images {
		url := "data:" + im.MediaType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)
		parts = append(parts, sdk.ImageContentPart(sdk.ChatCompletionContentPartImageImageURLParam{URL: url}))
	}
	return sdk.UserMessage(parts)
}

func referenceToolParam(t llm.ToolDef) (sdk.ChatCompletionToolUnionParam, error) {
	var schema shared.FunctionParameters
	if len(t.InputSchema) > 0 {
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			return sdk.ChatCompletionToolUnionParam{}, fmt.Errorf("tool %s: input schema is not a JSON object: %w", t.Name, err)
		}
	}
	if schema == nil {
		schema = shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
	}
	def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
	if t.Description != "" {
		def.Description = sdk.String(t.Description)
	}
	return sdk.ChatCompletionFunctionTool(def), nil
}
