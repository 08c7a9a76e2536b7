package reqcache

import (
	"bytes"
	"encoding/json"
	"sync"
)

var encoders = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled bounds the buffers kept for the next encoding: an image's
// few megabytes need not stay.
const maxPooled = 64 << 10

// Marshal encodes v without escaping <, > and &: the text goes to a model,
// not into HTML, and escaped code would only cost tokens. The result has
// no room to spare: a cache keeps it for the rest of the session.
func Marshal(v any) ([]byte, error) {
	return encode(nil, v)
}

// AppendString appends s to b as a JSON string, encoded like Marshal.
func AppendString(b []byte, s string) []byte {
	b, _ = encode(b, s) // a string always encodes
	return b
}

// encode appends v's encoding to b (a new slice of its exact size when b
// is nil).
func encode(b []byte, v any) ([]byte, error) {
	buf := encoders.Get().(*bytes.Buffer)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	if err == nil {
		out := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
		if b == nil {
			b = make([]byte, 0, len(out))
		}
		b = append(b, out...)
	}
	if buf.Cap() <= maxPooled {
		encoders.Put(buf)
	}
	return b, err
}
