// Package llm defines the provider-neutral conversation types every other
// harness9 package speaks: messages, tool calls, tool definitions, usage, and
// the streaming Provider interface that the OpenAI, Anthropic and scripted
// providers implement.
package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
)

// Role says who authored a message.
type Role string

// The roles a conversation can hold. The system prompt travels in
// Request.System, never as a message.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation. It is stored whole in the session
// store, so every field round-trips through JSON.
type Message struct {
	Role Role `json:"role"`
	// Content is the visible text (user prompt, assistant reply, tool output).
	Content string `json:"content,omitempty"`
	// Reasoning holds a model's separate reasoning text (DeepSeek, vLLM
	// reasoning_content, Anthropic thinking). It is kept for display and audit
	// and is not sent back to providers that do not accept it.
	Reasoning string `json:"reasoning,omitempty"`
	// ToolCalls are the calls an assistant message makes, in order.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a RoleTool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool's name on a RoleTool message.
	Name string `json:"name,omitempty"`
	// IsError marks a tool result that reports a failure to the model.
	IsError bool `json:"is_error,omitempty"`
	// Images are pictures attached to a user message or returned with a
	// tool result (read_file on an image). Older stored messages have none.
	Images []Image `json:"images,omitempty"`
	// ReasoningBlocks are an assistant message's reasoning as its provider
	// issued it, in order: Anthropic thinking and redacted_thinking blocks
	// with their signatures, OpenAI Responses reasoning items. The provider
	// that issued them sends them back unchanged, as its API requires
	// across tool calls; every other provider leaves them out. Reasoning
	// holds the readable text for display. Older stored messages have none.
	ReasoningBlocks []ReasoningBlock `json:"reasoning_blocks,omitempty"`
}

// ReasoningBlock is one piece of a model's reasoning that its API wants
// back verbatim on later calls. Treat it as opaque: only the provider named
// in Provider reads it.
type ReasoningBlock struct {
	// Provider is the Name of the provider that issued the block.
	Provider string `json:"provider"`
	// Type is the block's type on that provider's wire, e.g. "thinking",
	// "redacted_thinking" (Anthropic) or "reasoning" (OpenAI Responses).
	Type string `json:"type"`
	// Text is the block's reasoning text when the wire sends it back
	// (Anthropic's thinking).
	Text string `json:"text,omitempty"`
	// Signature authenticates Text (Anthropic's thinking signature).
	Signature string `json:"signature,omitempty"`
	// Data is the block's opaque payload: a redacted_thinking block's
	// data, or a Responses reasoning item as the API sent it (JSON).
	Data string `json:"data,omitempty"`
	// After is how many of the message's tool calls the model made before
	// this block (interleaved thinking between calls); 0 for reasoning that
	// came before them.
	After int `json:"after,omitempty"`
}

// Effort is how hard a reasoning model is asked to think: OpenAI's
// reasoning_effort, an Anthropic extended-thinking budget. The zero value
// leaves it to the provider (no extended thinking on Anthropic, the
// model's default effort on OpenAI).
type Effort string

// The reasoning efforts a Request can ask for.
const (
	EffortDefault Effort = ""
	EffortLow     Effort = "low"
	EffortMedium  Effort = "medium"
	EffortHigh    Effort = "high"
)

// ParseEffort reads "low", "medium" or "high" (any case); "" and "default"
// are EffortDefault.
func ParseEffort(s string) (Effort, error) {
	switch e := Effort(strings.ToLower(strings.TrimSpace(s))); e {
	case EffortLow, EffortMedium, EffortHigh, EffortDefault:
		return e, nil
	case "default":
		return EffortDefault, nil
	}
	return "", fmt.Errorf("%q is not a reasoning effort (want low, medium or high)", s)
}

// Image is one picture sent to a model. Data holds the encoded file (PNG,
// JPEG, GIF or WebP); it is base64 in JSON. Treat Data as immutable once
// the image is in a message: providers cache a message's encoding.
type Image struct {
	// MediaType is "image/png", "image/jpeg", "image/gif" or "image/webp".
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"`
	// Name is where the image came from (a file name), for display only;
	// it is not sent to the model.
	Name string `json:"name,omitempty"`
	// Width and Height are the pixel size, for display and estimates.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// DataURL returns the image as a "data:<type>;base64,<data>" URL.
func DataURL(im Image) string {
	prefix := "data:" + im.MediaType + ";base64,"
	b := make([]byte, len(prefix)+base64.StdEncoding.EncodedLen(len(im.Data)))
	copy(b, prefix)
	base64.StdEncoding.Encode(b[len(prefix):], im.Data)
	return string(b)
}

// Placeholder is how an image is shown instead of its bytes:
// "[image: name 800×600]".
func (im Image) Placeholder() string {
	name := im.Name
	if name == "" {
		name = im.MediaType
	}
	if im.Width > 0 && im.Height > 0 {
		return fmt.Sprintf("[image: %s %d×%d]", name, im.Width, im.Height)
	}
	return "[image: " + name + "]"
}

// ToolCall is one complete tool invocation requested by the model. Input is
// the raw JSON arguments exactly as the model produced them; it may be
// malformed, and the tool registry reports that back to the model.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// ToolDef describes a tool to the model. InputSchema is a JSON Schema object.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Usage is the token accounting a provider reports for one model call.
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// ReasoningTokens is how many of OutputTokens the model spent
	// reasoning, when the API says (OpenAI); Anthropic counts thinking in
	// OutputTokens without a separate figure.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// StopReason says why the model stopped producing output.
type StopReason string

// Stop reasons normalised across providers.
const (
	StopEndTurn   StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	StopMaxTokens StopReason = "max_tokens"
	StopOther     StopReason = "other"
)

// Request is one model call.
type Request struct {
	// Model is the provider's model name without the "provider/" prefix.
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolDef
	MaxTokens int // 0 means the provider's default
	// Unchanged is a promise a caller may make to a provider that keeps
	// what it made of earlier requests (harness9's providers do): the first
	// Unchanged messages are the elements of the same array, at the same
	// positions, that the caller's previous request sent (&Messages[0] is
	// the same), and nothing has written to them since — not the messages,
	// nor the bytes of their tool calls' inputs and images. The provider
	// then reuses its encoding of them without looking at them, so a
	// call's cost follows what changed rather than the conversation's
	// length. An agent whose history only grows can promise every message
	// its previous request had. Zero, the default, promises nothing and is
	// always safe: every message is checked, and one changed in place is
	// encoded again. A wrapper that rewrites Messages must set it to 0.
	Unchanged int
	// Effort asks a reasoning model for more or less reasoning; providers
	// whose API has no such setting ignore it.
	Effort Effort
}

// ChunkKind tags a streamed Chunk.
type ChunkKind int

// The kinds of streamed chunks.
const (
	// ChunkText carries a fragment of visible assistant text in Text.
	ChunkText ChunkKind = iota + 1
	// ChunkReasoning carries a fragment of reasoning text in Text.
	ChunkReasoning
	// ChunkToolCall carries one complete tool call in ToolCall. Providers
	// assemble argument fragments themselves; consumers never see partial JSON.
	ChunkToolCall
	// ChunkUsage carries token usage in Usage. It may arrive more than once;
	// later values replace earlier ones field by field when non-zero.
	ChunkUsage
	// ChunkStop carries the stop reason and is the last chunk of a stream.
	ChunkStop
	// ChunkReasoningBlock carries one complete ReasoningBlock in Block, in
	// stream order with the tool calls. Its text, if any, was streamed
	// before as ChunkReasoning.
	ChunkReasoningBlock
)

// Chunk is one streamed event of a model call.
type Chunk struct {
	Kind       ChunkKind
	Text       string
	ToolCall   *ToolCall
	Usage      *Usage
	StopReason StopReason
	Block      *ReasoningBlock
}

// Provider streams model calls. Implementations must be safe for concurrent
// use. The returned sequence yields chunks in order and ends after a
// ChunkStop chunk or after yielding a non-nil error (then it yields nothing
// more). A consumer may stop early by breaking out of the loop; the provider
// then releases the connection.
type Provider interface {
	// Name is the provider's short name as used in "provider/model", e.g. "openai".
	Name() string
	Stream(ctx context.Context, req Request) iter.Seq2[Chunk, error]
}

// Response is a whole assistant message assembled from a stream.
type Response struct {
	Message    Message
	Usage      Usage
	StopReason StopReason
}

// Accumulator assembles chunks into a Response. The zero value is ready.
type Accumulator struct {
	text, reasoning []byte
	calls           []ToolCall
	blocks          []ReasoningBlock
	usage           Usage
	stop            StopReason
}

// Add folds one chunk into the response under construction.
func (a *Accumulator) Add(c Chunk) {
	switch c.Kind {
	case ChunkText:
		a.text = append(a.text, c.Text...)
	case ChunkReasoning:
		a.reasoning = append(a.reasoning, c.Text...)
	case ChunkToolCall:
		if c.ToolCall != nil {
			a.calls = append(a.calls, *c.ToolCall)
		}
	case ChunkReasoningBlock:
		if c.Block != nil {
			b := *c.Block
			b.After = len(a.calls)
			a.blocks = append(a.blocks, b)
		}
	case ChunkUsage:
		if c.Usage != nil {
			mergeUsage(&a.usage, *c.Usage)
		}
	case ChunkStop:
		a.stop = c.StopReason
	}
}

// Response returns the assembled assistant message.
func (a *Accumulator) Response() Response {
	stop := a.stop
	if stop == "" {
		stop = StopEndTurn
		if len(a.calls) > 0 {
			stop = StopToolUse
		}
	}
	return Response{
		Message: Message{
			Role:      RoleAssistant,
			Content:   string(a.text),
			Reasoning: string(a.reasoning),
			ToolCalls: append([]ToolCall(nil), a.calls...),
			// Reasoning with nothing after it (no text, no call) is left
			// out: the APIs refuse a reasoning item without the output it
			// led to.
			ReasoningBlocks: a.keptBlocks(),
		},
		Usage:      a.usage,
		StopReason: stop,
	}
}

// keptBlocks returns the reasoning blocks the response keeps: none when
// the model produced neither text nor a tool call.
func (a *Accumulator) keptBlocks() []ReasoningBlock {
	if len(a.blocks) == 0 || (len(a.text) == 0 && len(a.calls) == 0) {
		return nil
	}
	return append([]ReasoningBlock(nil), a.blocks...)
}

func mergeUsage(dst *Usage, u Usage) {
	if u.InputTokens != 0 {
		dst.InputTokens = u.InputTokens
	}
	if u.OutputTokens != 0 {
		dst.OutputTokens = u.OutputTokens
	}
	if u.CacheReadTokens != 0 {
		dst.CacheReadTokens = u.CacheReadTokens
	}
	if u.CacheWriteTokens != 0 {
		dst.CacheWriteTokens = u.CacheWriteTokens
	}
	if u.ReasoningTokens != 0 {
		dst.ReasoningTokens = u.ReasoningTokens
	}
}

// Collect drains a stream into a Response. It is a convenience for callers
// that do not need the individual chunks.
func Collect(seq iter.Seq2[Chunk, error]) (Response, error) {
	var acc Accumulator
	for c, err := range seq {
		if err != nil {
			return acc.Response(), err
		}
		acc.Add(c)
	}
	return acc.Response(), nil
}
