package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxBody caps a request body; the binary's requests are far smaller.
const maxBody = 64 << 20

// decodeOpenAI reads a Chat Completions request.
func decodeOpenAI(r *http.Request) (conversation, error) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&req); err != nil {
		return conversation{}, fmt.Errorf("decoding the request: %w", err)
	}
	c := conversation{model: req.Model, tools: map[string]bool{}}
	for _, t := range req.Tools {
		c.tools[t.Function.Name] = true
	}
	for _, m := range req.Messages {
		msg := message{role: m.Role, text: contentText(m.Content)}
		switch m.Role {
		case "system", "developer":
			continue
		case "tool":
			// Consecutive tool messages are one batch of results.
			if n := len(c.messages); n > 0 && c.messages[n-1].role == "tool" {
				c.messages[n-1].results++
				continue
			}
			msg.results = 1
		}
		for _, k := range m.ToolCalls {
			msg.calls = append(msg.calls, call{ID: k.ID, Name: k.Function.Name, Input: json.RawMessage(k.Function.Arguments)})
		}
		c.messages = append(c.messages, msg)
	}
	return c, nil
}

// decodeAnthropic reads a Messages request.
func decodeAnthropic(r *http.Request) (conversation, error) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Thinking struct {
			Type string `json:"type"`
		} `json:"thinking"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&req); err != nil {
		return conversation{}, fmt.Errorf("decoding the request: %w", err)
	}
	c := conversation{model: req.Model, tools: map[string]bool{}, reasoning: req.Thinking.Type == "enabled"}
	for _, t := range req.Tools {
		c.tools[t.Name] = true
	}
	for _, m := range req.Messages {
		msg := message{role: m.Role, text: contentText(m.Content)}
		var blocks []struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			Thinking  string          `json:"thinking"`
			Signature string          `json:"signature"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		for i, b := range blocks {
			switch b.Type {
			case "thinking":
				if b.Signature != seal(b.Thinking) {
					return conversation{}, fmt.Errorf("messages.%d.content.%d: Invalid `signature` in `thinking` block", len(c.messages), i)
				}
				msg.thought = msg.thought || i == 0
			case "tool_use":
				msg.calls = append(msg.calls, call{ID: b.ID, Name: b.Name, Input: b.Input})
			case "tool_result":
				msg.results++
			}
		}
		c.messages = append(c.messages, msg)
	}
	return c, nil
}

// contentText is the text of a message's content: a string, or the text
// parts of a list of parts or blocks (the Responses API's input_text and
// output_text parts included).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "input_text" || p.Type == "output_text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// sse writes one Server-Sent Event (event may be empty) and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// tokens is a rough count for the usage the wire reports.
func tokens(s string) int { return 1 + len(s)/4 }

func writeOpenAI(w http.ResponseWriter, c conversation, a answer) {
	model := c.model
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	sse(w, "", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if a.text != "" {
		sse(w, "", chunk(map[string]any{"content": a.text}, nil))
	}
	out := tokens(a.text)
	for i, k := range a.calls {
		sse(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": k.ID, "type": "function",
			"function": map[string]any{"name": k.Name, "arguments": string(k.Input)}}}}, nil))
		out += tokens(string(k.Input))
	}
	finish := "stop"
	if len(a.calls) > 0 {
		finish = "tool_calls"
	}
	sse(w, "", chunk(map[string]any{}, finish))
	sse(w, "", map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model,
		"choices": []any{}, "usage": map[string]any{"prompt_tokens": 100, "completion_tokens": out, "total_tokens": 100 + out}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func writeAnthropic(w http.ResponseWriter, c conversation, a answer) {
	model := c.model
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
	index := 0
	out := tokens(a.text)
	if a.thought != "" {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "thinking_delta", "thinking": a.thought}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "signature_delta", "signature": seal(a.thought)}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		out += tokens(a.thought)
	}
	if a.text != "" {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "text_delta", "text": a.text}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	for _, k := range a.calls {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": k.ID, "name": k.Name, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(k.Input)}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
		out += tokens(string(k.Input))
	}
	stop := "end_turn"
	if len(a.calls) > 0 {
		stop = "tool_use"
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": out}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
