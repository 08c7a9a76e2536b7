package reqcache

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v without escaping <, > and &: the text goes to a model,
// not into HTML, and escaped code would only cost tokens.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// AppendString appends s to b as a JSON string, encoded like Marshal.
func AppendString(b []byte, s string) []byte {
	enc, _ := Marshal(s) // a string always encodes
	return append(b, enc...)
}
