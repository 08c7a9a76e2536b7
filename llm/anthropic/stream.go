package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/harness9/harness9/llm"
)

// assembler turns Messages stream events into llm.Chunks: text_delta and
// thinking_delta go out as they arrive, a tool_use block goes out whole at its
// content_block_stop, and usage plus the stop reason at message_stop.
type assembler struct {
	send func(llm.Chunk) bool
	name string // the provider's name, for the reasoning blocks it issues
	sent bool   // a chunk reached the consumer
	done bool   // message_stop arrived

	blocks   map[int64]*toolBlock     // open tool_use blocks by index
	thinking map[int64]*thinkingState // open thinking blocks by index
	usage    rawUsage
	stop     string
}

// thinkingState is a thinking or redacted_thinking block being streamed.
type thinkingState struct {
	redacted  bool
	text, sig strings.Builder
	data      string
}

type toolBlock struct {
	id, name string
	start    any // input in content_block_start, normally {}
	json     strings.Builder
}

// rawUsage keeps Anthropic's split input counts; llm.Usage.InputTokens is
// their sum, the whole prompt, so context-size estimates see cached tokens.
type rawUsage struct {
	input, output, cacheRead, cacheWrite, thinking int64
}

// mergeThinking takes the thinking tokens of an event when it reports them.
func (u *rawUsage) mergeThinking(n int64) {
	if n != 0 {
		u.thinking = n
	}
}

func (a *assembler) emit(c llm.Chunk) bool {
	a.sent = true
	return a.send(c)
}

// add folds one event in; it reports false when the consumer stopped.
func (a *assembler) add(ev sdk.MessageStreamEventUnion) (bool, error) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		a.usage.merge(u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens)
		a.usage.mergeThinking(u.OutputTokensDetails.ThinkingTokens)
	case "content_block_start":
		cb := ev.ContentBlock
		if cb.Type == "tool_use" {
			if a.blocks == nil {
				a.blocks = map[int64]*toolBlock{}
			}
			a.blocks[ev.Index] = &toolBlock{id: cb.ID, name: cb.Name, start: cb.Input}
		}
		if cb.Type == "thinking" || cb.Type == "redacted_thinking" {
			if a.thinking == nil {
				a.thinking = map[int64]*thinkingState{}
			}
			st := &thinkingState{redacted: cb.Type == "redacted_thinking", data: cb.Data}
			st.sig.WriteString(cb.Signature)
			a.thinking[ev.Index] = st
			if cb.Thinking != "" {
				st.text.WriteString(cb.Thinking)
				return a.emit(llm.Chunk{Kind: llm.ChunkReasoning, Text: cb.Thinking}), nil
			}
		}
		// A text block may start with text in some compatible servers.
		if cb.Type == "text" && cb.Text != "" {
			return a.emit(llm.Chunk{Kind: llm.ChunkText, Text: cb.Text}), nil
		}
	case "content_block_delta":
		d := ev.Delta
		switch d.Type {
		case "text_delta":
			if d.Text != "" {
				return a.emit(llm.Chunk{Kind: llm.ChunkText, Text: d.Text}), nil
			}
		case "thinking_delta":
			if st := a.thinking[ev.Index]; st != nil {
				st.text.WriteString(d.Thinking)
			}
			if d.Thinking != "" {
				return a.emit(llm.Chunk{Kind: llm.ChunkReasoning, Text: d.Thinking}), nil
			}
		case "signature_delta":
			st, ok := a.thinking[ev.Index]
			if !ok {
				return true, fmt.Errorf("signature_delta for block %d, which is not a thinking block", ev.Index)
			}
			st.sig.WriteString(d.Signature)
		case "input_json_delta":
			b, ok := a.blocks[ev.Index]
			if !ok {
				return true, fmt.Errorf("input_json_delta for block %d, which is not a tool_use block", ev.Index)
			}
			b.json.WriteString(d.PartialJSON)
		}
	case "content_block_stop":
		if st, ok := a.thinking[ev.Index]; ok {
			delete(a.thinking, ev.Index)
			return a.emit(llm.Chunk{Kind: llm.ChunkReasoningBlock, Block: st.block(a.name)}), nil
		}
		b, ok := a.blocks[ev.Index]
		if !ok {
			return true, nil
		}
		delete(a.blocks, ev.Index)
		call := &llm.ToolCall{ID: b.id, Name: b.name, Input: b.input()}
		return a.emit(llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: call}), nil
	case "message_delta":
		if ev.Delta.StopReason != "" {
			a.stop = string(ev.Delta.StopReason)
		}
		u := ev.Usage
		a.usage.merge(u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens)
		a.usage.mergeThinking(u.OutputTokensDetails.ThinkingTokens)
	case "message_stop":
		a.done = true
		u := a.usage.llm()
		if u != (llm.Usage{}) && !a.emit(llm.Chunk{Kind: llm.ChunkUsage, Usage: &u}) {
			return false, nil
		}
		return a.emit(llm.Chunk{Kind: llm.ChunkStop, StopReason: stopReason(a.stop)}), nil
	}
	return true, nil
}

// block is the finished block as an llm.ReasoningBlock.
func (st *thinkingState) block(provider string) *llm.ReasoningBlock {
	if st.redacted {
		return &llm.ReasoningBlock{Provider: provider, Type: "redacted_thinking", Data: st.data}
	}
	return &llm.ReasoningBlock{Provider: provider, Type: "thinking", Text: st.text.String(), Signature: st.sig.String()}
}

// input returns the assembled tool input; an empty input becomes {}.
func (b *toolBlock) input() json.RawMessage {
	s := strings.TrimSpace(b.json.String())
	if s == "" {
		if m, ok := b.start.(map[string]any); ok && len(m) > 0 {
			raw, _ := json.Marshal(m)
			return raw
		}
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// merge takes the non-zero counts of an event; message_delta counts are
// cumulative.
func (u *rawUsage) merge(in, out, cacheRead, cacheWrite int64) {
	for _, f := range []struct {
		dst *int64
		v   int64
	}{
		{&u.input, in}, {&u.output, out}, {&u.cacheRead, cacheRead}, {&u.cacheWrite, cacheWrite},
	} {
		if f.v != 0 {
			*f.dst = f.v
		}
	}
}

func (u rawUsage) llm() llm.Usage {
	return llm.Usage{
		InputTokens:      int(u.input + u.cacheRead + u.cacheWrite),
		OutputTokens:     int(u.output),
		CacheReadTokens:  int(u.cacheRead),
		CacheWriteTokens: int(u.cacheWrite),
		ReasoningTokens:  int(u.thinking),
	}
}

func stopReason(s string) llm.StopReason {
	switch s {
	case "end_turn", "stop_sequence", "":
		return llm.StopEndTurn
	case "tool_use":
		return llm.StopToolUse
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopMaxTokens
	}
	return llm.StopOther // pause_turn, refusal
}
