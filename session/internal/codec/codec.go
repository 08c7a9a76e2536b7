// Package codec is the stored JSON form of an llm.Message that every
// session store writes, so that a message round-trips byte for byte
// whichever database holds it.
package codec

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/harness9/harness9/llm"
)

// storedMessage is the JSON form of an llm.Message in a store's message rows. It is
// llm.Message itself (so fields added to it later are stored without a
// change here) except for the tool calls, whose Input needs care.
type storedMessage struct {
	llm.Message
	ToolCalls []storedCall `json:"tool_calls,omitempty"` // shadows Message.ToolCalls
}

// storedCall keeps a tool call's Input byte for byte. llm.ToolCall.Input is
// the model's raw arguments and may be malformed JSON, which json.Marshal
// refuses, or valid JSON with whitespace, which json.Marshal would compact.
// Compact valid JSON is stored as a JSON value in "input"; anything else as
// a string in "raw_input". A nil Input stores neither. As everywhere in
// encoding/json, invalid UTF-8 in any string becomes U+FFFD; model output
// arrives as JSON text and is valid UTF-8.
type storedCall struct {
	llm.ToolCall
	Input    json.RawMessage `json:"input,omitempty"` // shadows ToolCall.Input
	RawInput *string         `json:"raw_input,omitempty"`
}

// EncodeMessage returns m as stored: JSON with tool-call inputs kept byte
// for byte.
func EncodeMessage(m llm.Message) ([]byte, error) {
	sm := storedMessage{Message: m}
	sm.Message.ToolCalls = nil
	if len(m.ToolCalls) > 0 {
		sm.ToolCalls = make([]storedCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			sc := storedCall{ToolCall: tc}
			sc.ToolCall.Input = nil
			switch {
			case tc.Input == nil:
			case isCompactJSON(tc.Input):
				sc.Input = tc.Input
			default:
				raw := string(tc.Input)
				sc.RawInput = &raw
			}
			sm.ToolCalls[i] = sc
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Without this the encoder rewrites <, > and & inside Input as \u003c
	// and friends, and the stored arguments would differ from the model's.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(sm); err != nil {
		return nil, fmt.Errorf("encode message: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// DecodeMessage is EncodeMessage's inverse.
func DecodeMessage(body []byte) (llm.Message, error) {
	var sm storedMessage
	if err := json.Unmarshal(body, &sm); err != nil {
		return llm.Message{}, fmt.Errorf("decode stored message: %w", err)
	}
	m := sm.Message
	m.ToolCalls = nil
	if len(sm.ToolCalls) > 0 {
		m.ToolCalls = make([]llm.ToolCall, len(sm.ToolCalls))
		for i, sc := range sm.ToolCalls {
			tc := sc.ToolCall
			tc.Input = sc.Input
			if sc.RawInput != nil {
				tc.Input = json.RawMessage(*sc.RawInput)
			}
			m.ToolCalls[i] = tc
		}
	}
	return m, nil
}

// isCompactJSON reports whether b is valid JSON that the encoder would copy
// unchanged: already compact.
func isCompactJSON(b []byte) bool {
	if len(b) == 0 || !json.Valid(b) {
		return false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return false
	}
	return bytes.Equal(buf.Bytes(), b)
}
