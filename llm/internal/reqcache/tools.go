package reqcache

import (
	"sync"

	"github.com/harness9/harness9/llm"
)

// maxTools bounds Tools: definitions change rarely, so a cache this full
// holds mostly stale ones and is simply emptied.
const maxTools = 1024

// Tools caches one encoding V per tool definition, by content: an engine
// hands the same few definitions to every call, so each is parsed and
// encoded once per change instead of once per turn. It is safe for
// concurrent use.
type Tools[V any] struct {
	mu      sync.Mutex
	entries map[toolKey]V
}

type toolKey struct{ name, description, schema string }

// Encode returns the encoding of each definition, calling encode only for
// those not seen before. An encode error is returned as is.
func (c *Tools[V]) Encode(defs []llm.ToolDef, encode func(llm.ToolDef) (V, error)) ([]V, error) {
	if len(defs) == 0 {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) > maxTools {
		c.entries = map[toolKey]V{}
	}
	out := make([]V, len(defs))
	for i, d := range defs {
		k := toolKey{d.Name, d.Description, string(d.InputSchema)}
		v, ok := c.entries[k]
		if !ok {
			var err error
			if v, err = encode(d); err != nil {
				return nil, err
			}
			c.entries[k] = v
		}
		out[i] = v
	}
	return out, nil
}
