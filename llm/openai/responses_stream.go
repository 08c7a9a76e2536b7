package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/reqcache"
	"github.com/openai/openai-go/v3/responses"
)

// attemptResponses makes one Responses request and streams its chunks to
// send. It reports whether any chunk was sent.
func (p *Provider) attemptResponses(ctx context.Context, body *reqcache.Body, send func(llm.Chunk) bool) (bool, error) {
	// The SDK encodes the (empty) params; checkStatus then sends body instead.
	stream := p.responses.NewStreaming(reqcache.WithBody(ctx, body), responses.ResponseNewParams{})
	defer stream.Close()
	a := respAssembler{send: send, name: p.name}
	events := 0
	for stream.Next() {
		events++
		cont, err := a.add(stream.Current())
		if err != nil {
			return a.sent, p.fail(ctx, err, true)
		}
		if !cont || a.done {
			return true, nil
		}
	}
	if err := stream.Err(); err != nil {
		return a.sent, p.fail(ctx, err, events > 0)
	}
	return a.sent, p.fail(ctx, llm.ErrStreamTruncated, true)
}

// respAssembler turns Responses stream events into llm.Chunks: text and
// reasoning summaries go out as they arrive; a function call and a
// reasoning item go out whole when their output item is done, in output
// order; usage and the stop chunk when the response completes.
type respAssembler struct {
	send  func(llm.Chunk) bool
	name  string
	sent  bool
	done  bool
	calls int
	// summaries counts the reasoning summary parts seen, to separate them.
	summaries int
}

func (a *respAssembler) emit(c llm.Chunk) bool {
	a.sent = true
	return a.send(c)
}

// respItem is the part of an output item the assembler reads.
type respItem struct {
	Type      string          `json:"type"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Summary   json.RawMessage `json:"summary"`
	Encrypted string          `json:"encrypted_content"`
}

// reasoningItem is a reasoning item as it is sent back: no id (the
// request stores nothing to refer to), the summary as it came and the
// encrypted reasoning.
type reasoningItem struct {
	Type      string          `json:"type"`
	Summary   json.RawMessage `json:"summary"`
	Encrypted string          `json:"encrypted_content"`
}

// add folds one event in; it reports false when the consumer stopped.
func (a *respAssembler) add(ev responses.ResponseStreamEventUnion) (bool, error) {
	switch ev.Type {
	case "response.output_text.delta", "response.refusal.delta":
		if ev.Delta != "" {
			return a.emit(llm.Chunk{Kind: llm.ChunkText, Text: ev.Delta}), nil
		}
	case "response.reasoning_summary_part.added":
		a.summaries++
		if a.summaries > 1 {
			return a.emit(llm.Chunk{Kind: llm.ChunkReasoning, Text: "\n\n"}), nil
		}
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if ev.Delta != "" {
			return a.emit(llm.Chunk{Kind: llm.ChunkReasoning, Text: ev.Delta}), nil
		}
	case "response.output_item.done":
		var it respItem
		if err := json.Unmarshal([]byte(ev.Item.RawJSON()), &it); err != nil {
			return true, fmt.Errorf("output item: %w", err)
		}
		switch it.Type {
		case "function_call":
			a.calls++
			args := strings.TrimSpace(it.Arguments)
			if args == "" {
				args = "{}"
			}
			call := &llm.ToolCall{ID: it.CallID, Name: it.Name, Input: json.RawMessage(args)}
			return a.emit(llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: call}), nil
		case "reasoning":
			if it.Encrypted == "" {
				return true, nil // nothing a stateless request could send back
			}
			if len(it.Summary) == 0 {
				it.Summary = json.RawMessage("[]")
			}
			data, err := reqcache.Marshal(reasoningItem{Type: "reasoning", Summary: it.Summary, Encrypted: it.Encrypted})
			if err != nil {
				return true, err
			}
			block := &llm.ReasoningBlock{Provider: a.name, Type: "reasoning", Data: string(data)}
			return a.emit(llm.Chunk{Kind: llm.ChunkReasoningBlock, Block: block}), nil
		}
	case "response.completed", "response.incomplete":
		return a.finish(ev.Response), nil
	case "response.failed":
		e := ev.Response.Error
		return true, &streamFailure{code: string(e.Code), message: e.Message}
	case "error":
		return true, &streamFailure{code: ev.Code, message: ev.Message}
	}
	return true, nil
}

// finish sends the usage and the stop chunk of a finished response.
func (a *respAssembler) finish(r responses.Response) bool {
	a.done = true
	u := r.Usage
	usage := llm.Usage{
		InputTokens:      int(u.InputTokens),
		OutputTokens:     int(u.OutputTokens),
		CacheReadTokens:  int(u.InputTokensDetails.CachedTokens),
		CacheWriteTokens: int(u.InputTokensDetails.CacheWriteTokens),
		ReasoningTokens:  int(u.OutputTokensDetails.ReasoningTokens),
	}
	if usage != (llm.Usage{}) && !a.emit(llm.Chunk{Kind: llm.ChunkUsage, Usage: &usage}) {
		return false
	}
	stop := llm.StopEndTurn
	switch {
	case r.Status == "incomplete" && r.IncompleteDetails.Reason == "max_output_tokens":
		stop = llm.StopMaxTokens
	case r.Status == "incomplete":
		stop = llm.StopOther
	case a.calls > 0:
		stop = llm.StopToolUse
	}
	return a.emit(llm.Chunk{Kind: llm.ChunkStop, StopReason: stop})
}

// streamFailure is an error the Responses stream reported in an event.
type streamFailure struct{ code, message string }

func (e *streamFailure) Error() string {
	if e.code == "" {
		return e.message
	}
	return e.code + ": " + e.message
}
