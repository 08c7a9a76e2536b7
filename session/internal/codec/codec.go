// Package codec is the stored JSON form of an llm.Message that every
// session store writes, so that a message round-trips byte for byte
// whichever database holds it.
package codec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/harness9/harness9/llm"
)

// storedMessage is the JSON form of an llm.Message in a store's message rows. It is
// llm.Message itself (so fields added to it later are stored without a
// change here) except for the tool calls, whose Input needs care.
type storedMessage struct {
	llm.Message
	ToolCalls []storedCall  `json:"tool_calls,omitempty"` // shadows Message.ToolCalls
	Images    []storedImage `json:"images,omitempty"`     // shadows Message.Images
}

// storedImage is an image in messages.body: everything but its bytes,
// which are in the images table under SHA256. Base64 inside JSON made a
// resume slow (encoding/json decodes it at about 20 MB/s: 0.7 s for a
// session with ten 1 MB pictures); a BLOB is read at memory speed.
type storedImage struct {
	llm.Image
	Data   []byte `json:"data,omitempty"` // shadows Image.Data; written only inline
	SHA256 string `json:"sha256"`
}

func imageSHA(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
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
// for byte, and images without their bytes (the store keeps those by
// SHA-256, see ImageSHA).
func EncodeMessage(m llm.Message) ([]byte, error) { return encode(m, false) }

// EncodeMessageInline is EncodeMessage with the images' bytes inside the
// JSON, for a store without an images table.
func EncodeMessageInline(m llm.Message) ([]byte, error) { return encode(m, true) }

// ImageSHA is the key an image's bytes are stored under.
func ImageSHA(data []byte) string { return imageSHA(data) }

func encode(m llm.Message, inline bool) ([]byte, error) {
	sm := storedMessage{Message: m}
	sm.Message.ToolCalls = nil
	sm.Message.Images = nil
	for _, im := range m.Images {
		si := storedImage{Image: im, SHA256: imageSHA(im.Data)}
		si.Image.Data = nil
		if inline {
			si.Data = im.Data
		}
		sm.Images = append(sm.Images, si)
	}
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

// DecodeMessage is the inverse of EncodeMessage and EncodeMessageInline.
// Images stored inline come with their bytes; the others come without,
// and shas[i] names where Images[i]'s bytes are kept by the store.
func DecodeMessage(body []byte) (m llm.Message, shas []string, err error) {
	var sm storedMessage
	if err := json.Unmarshal(body, &sm); err != nil {
		return llm.Message{}, nil, fmt.Errorf("decode stored message: %w", err)
	}
	m = sm.Message
	m.ToolCalls = nil
	m.Images = nil
	for _, si := range sm.Images {
		im := si.Image
		im.Data = si.Data // filled from the images table by the caller
		m.Images = append(m.Images, im)
		shas = append(shas, si.SHA256)
	}
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
	return m, shas, nil
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
