package openai

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/harness9/harness9/llm"
	sdk "github.com/openai/openai-go/v3"
)

// assembler turns chat.completion.chunk events into llm.Chunks. Text and
// reasoning go out as they arrive; tool calls are buffered by index until the
// choice's finish_reason (or the end of the stream) and then sent whole, in
// index order; usage and the stop chunk go out last.
type assembler struct {
	send func(llm.Chunk) bool
	sent bool // a chunk reached the consumer

	calls        []*pendingCall // in order of first appearance
	flushed      bool           // tool calls were sent
	finishReason string         // finish_reason of choice 0, "" until it arrives
	usage        *llm.Usage
}

type pendingCall struct {
	index int64
	id    string
	name  string
	args  strings.Builder
}

func (a *assembler) emit(c llm.Chunk) bool {
	a.sent = true
	return a.send(c)
}

// add folds one chunk in; it returns false when the consumer stopped.
func (a *assembler) add(c sdk.ChatCompletionChunk) bool {
	if c.JSON.Usage.Valid() && (c.Usage.PromptTokens != 0 || c.Usage.CompletionTokens != 0) {
		a.usage = &llm.Usage{
			InputTokens:      int(c.Usage.PromptTokens),
			OutputTokens:     int(c.Usage.CompletionTokens),
			CacheReadTokens:  int(c.Usage.PromptTokensDetails.CachedTokens),
			CacheWriteTokens: int(c.Usage.PromptTokensDetails.CacheWriteTokens),
			ReasoningTokens:  int(c.Usage.CompletionTokensDetails.ReasoningTokens),
		}
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue // we never ask for n > 1
		}
		d := ch.Delta
		if r := reasoning(d); r != "" && !a.emit(llm.Chunk{Kind: llm.ChunkReasoning, Text: r}) {
			return false
		}
		if d.Content != "" && !a.emit(llm.Chunk{Kind: llm.ChunkText, Text: d.Content}) {
			return false
		}
		if d.Refusal != "" && !a.emit(llm.Chunk{Kind: llm.ChunkText, Text: d.Refusal}) {
			return false
		}
		for _, tc := range d.ToolCalls {
			a.addCall(tc)
		}
		if ch.FinishReason != "" {
			a.finishReason = ch.FinishReason
			if !a.flush() {
				return false
			}
		}
	}
	return true
}

// reasoning returns the reasoning text of a delta. It is not part of the
// OpenAI API, so the SDK has no field for it: DeepSeek and vLLM send
// "reasoning_content", OpenRouter and newer vLLM "reasoning".
func reasoning(d sdk.ChatCompletionChunkChoiceDelta) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		f, ok := d.JSON.ExtraFields[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func (a *assembler) addCall(tc sdk.ChatCompletionChunkChoiceDeltaToolCall) {
	var pc *pendingCall
	for _, c := range a.calls {
		if c.index == tc.Index {
			pc = c
		}
	}
	// Some servers send each call whole with the same (or no) index; a new id
	// at a used index is a new call.
	if pc != nil && tc.ID != "" && pc.id != "" && tc.ID != pc.id {
		idx := tc.Index
		for _, c := range a.calls {
			idx = max(idx, c.index+1)
		}
		tc.Index, pc = idx, nil
	}
	if pc == nil {
		pc = &pendingCall{index: tc.Index}
		a.calls = append(a.calls, pc)
	}
	if tc.ID != "" {
		pc.id = tc.ID
	}
	if tc.Function.Name != "" {
		pc.name += tc.Function.Name
	}
	pc.args.WriteString(tc.Function.Arguments)
}

// flush sends the buffered tool calls once, in index order.
func (a *assembler) flush() bool {
	if a.flushed {
		return true
	}
	a.flushed = true
	calls := slices.Clone(a.calls)
	slices.SortStableFunc(calls, func(x, y *pendingCall) int { return int(x.index - y.index) })
	for i, pc := range calls {
		id := pc.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		args := strings.TrimSpace(pc.args.String())
		if args == "" {
			args = "{}"
		}
		call := &llm.ToolCall{ID: id, Name: pc.name, Input: json.RawMessage(args)}
		if !a.emit(llm.Chunk{Kind: llm.ChunkToolCall, ToolCall: call}) {
			return false
		}
	}
	return true
}

// finish ends a stream that closed without error. It reports false when the
// consumer stopped, and llm.ErrStreamTruncated when no finish_reason arrived.
func (a *assembler) finish() (bool, error) {
	if a.finishReason == "" {
		return true, llm.ErrStreamTruncated
	}
	if !a.flush() {
		return false, nil
	}
	if a.usage != nil && !a.emit(llm.Chunk{Kind: llm.ChunkUsage, Usage: a.usage}) {
		return false, nil
	}
	return a.emit(llm.Chunk{Kind: llm.ChunkStop, StopReason: a.stopReason()}), nil
}

func (a *assembler) stopReason() llm.StopReason {
	switch a.finishReason {
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "length":
		return llm.StopMaxTokens
	case "stop":
		if len(a.calls) > 0 { // some servers say "stop" after tool calls
			return llm.StopToolUse
		}
		return llm.StopEndTurn
	}
	return llm.StopOther
}
