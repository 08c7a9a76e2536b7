package fakemodel

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// seal is what the stand-in signs its reasoning with (a thinking block's
// signature, a reasoning item's encrypted content): reasoning sent back
// changed, or made up, does not match.
func seal(thought string) string {
	sum := sha256.Sum256([]byte("fakemodel:" + thought))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// errNoReasoning is the refusal of a tool call's results sent without the
// reasoning that led to the call.
var errNoReasoning = errors.New("the final assistant message must start with the reasoning it was given " +
	"(a thinking block, a reasoning item) when reasoning is on: send back the blocks the model returned")

// checkReasoning refuses, as the APIs do, a request that asks for
// reasoning and carries tool results whose calls come without the
// reasoning the model gave with them.
func (c conversation) checkReasoning() error {
	n := len(c.messages)
	if !c.reasoning || n < 2 || c.messages[n-1].results == 0 {
		return nil
	}
	if m := c.messages[n-2]; m.role == "assistant" && len(m.calls) > 0 && !m.thought {
		return errNoReasoning
	}
	return nil
}

// lastPrompt is the text of the conversation's last prompt.
func (c conversation) lastPrompt() string {
	for i := len(c.messages) - 1; i >= 0; i-- {
		if m := c.messages[i]; m.role == "user" && m.results == 0 {
			return m.text
		}
	}
	return ""
}

// decodeResponses reads a Responses API request: its input items become
// the conversation's messages (an assistant turn's reasoning, text and
// calls are consecutive items; so are a batch of call outputs).
func decodeResponses(r *http.Request) (conversation, error) {
	var req struct {
		Model string            `json:"model"`
		Input []json.RawMessage `json:"input"`
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Reasoning *struct {
			Effort string `json:"effort"`
		} `json:"reasoning"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&req); err != nil {
		return conversation{}, fmt.Errorf("decoding the request: %w", err)
	}
	c := conversation{model: req.Model, tools: map[string]bool{}, reasoning: req.Reasoning != nil && req.Reasoning.Effort != ""}
	for _, t := range req.Tools {
		c.tools[t.Name] = true
	}
	// assistant returns the assistant message the next assistant item
	// belongs to.
	assistant := func() *message {
		if n := len(c.messages); n > 0 && c.messages[n-1].role == "assistant" {
			return &c.messages[n-1]
		}
		c.messages = append(c.messages, message{role: "assistant"})
		return &c.messages[len(c.messages)-1]
	}
	for i, raw := range req.Input {
		var it struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Summary   []struct {
				Text string `json:"text"`
			} `json:"summary"`
			Encrypted string `json:"encrypted_content"`
		}
		if err := json.Unmarshal(raw, &it); err != nil {
			return conversation{}, fmt.Errorf("input[%d]: %w", i, err)
		}
		switch {
		case it.Type == "reasoning":
			var thought strings.Builder
			for _, s := range it.Summary {
				thought.WriteString(s.Text)
			}
			if it.Encrypted != seal(thought.String()) {
				return conversation{}, fmt.Errorf("input[%d]: the encrypted content of a reasoning item could not be verified", i)
			}
			assistant().thought = true
		case it.Type == "function_call":
			m := assistant()
			m.calls = append(m.calls, call{ID: it.CallID, Name: it.Name, Input: json.RawMessage(it.Arguments)})
		case it.Type == "function_call_output":
			if n := len(c.messages); n > 0 && c.messages[n-1].role == "tool" {
				c.messages[n-1].results++
				continue
			}
			c.messages = append(c.messages, message{role: "tool", results: 1})
		case it.Role == "assistant":
			assistant().text += contentText(it.Content)
		case it.Role == "user":
			c.messages = append(c.messages, message{role: "user", text: contentText(it.Content)})
		}
	}
	return c, nil
}

// writeResponses streams the answer as Responses API events: a reasoning
// item (its summary, then the item with its encrypted content), the
// message, the function calls, and the completed response with its usage.
func writeResponses(w http.ResponseWriter, c conversation, a answer) {
	seq := 0
	event := func(typ string, fields map[string]any) {
		fields["type"], fields["sequence_number"] = typ, seq
		seq++
		sse(w, typ, fields)
	}
	response := func(status string, output []any, usage any) map[string]any {
		return map[string]any{"id": "resp_fake", "object": "response", "created_at": 0, "status": status, "model": c.model,
			"output": output, "usage": usage}
	}
	event("response.created", map[string]any{"response": response("in_progress", []any{}, nil)})
	var output []any
	done := func(item map[string]any) {
		event("response.output_item.done", map[string]any{"output_index": len(output), "item": item})
		output = append(output, item)
	}
	reasoning := 0
	if a.thought != "" {
		id := "rs_fake"
		event("response.output_item.added", map[string]any{"output_index": len(output),
			"item": map[string]any{"id": id, "type": "reasoning", "summary": []any{}}})
		event("response.reasoning_summary_part.added", map[string]any{"item_id": id, "output_index": len(output), "summary_index": 0,
			"part": map[string]any{"type": "summary_text", "text": ""}})
		event("response.reasoning_summary_text.delta", map[string]any{"item_id": id, "output_index": len(output), "summary_index": 0,
			"delta": a.thought})
		done(map[string]any{"id": id, "type": "reasoning", "encrypted_content": seal(a.thought),
			"summary": []any{map[string]any{"type": "summary_text", "text": a.thought}}})
		reasoning = tokens(a.thought)
	}
	if a.text != "" {
		id := "msg_fake"
		event("response.output_item.added", map[string]any{"output_index": len(output),
			"item": map[string]any{"id": id, "type": "message", "role": "assistant", "status": "in_progress", "content": []any{}}})
		event("response.output_text.delta", map[string]any{"item_id": id, "output_index": len(output), "content_index": 0, "delta": a.text})
		done(map[string]any{"id": id, "type": "message", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": a.text, "annotations": []any{}}}})
	}
	out := reasoning + tokens(a.text)
	for i, k := range a.calls {
		done(map[string]any{"id": fmt.Sprintf("fc_fake_%d", i), "type": "function_call", "status": "completed",
			"call_id": k.ID, "name": k.Name, "arguments": string(k.Input)})
		out += tokens(string(k.Input))
	}
	usage := map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": reasoning}, "total_tokens": 100 + out}
	event("response.completed", map[string]any{"response": response("completed", output, usage)})
}
