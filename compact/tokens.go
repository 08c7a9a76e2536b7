package compact

import (
	"sync"
	"unicode/utf8"

	"github.com/harness9/harness9/llm"
	"github.com/tiktoken-go/tokenizer/codec"
)

// Token estimation.
//
// Exact BPE counting (o200k_base, the encoding of current OpenAI models and a
// close proxy for others) costs a few microseconds per kilobyte, which adds up
// on a 10,000-message history checked before every model call. So the
// estimator remembers the count of every text it has seen (history grows at
// the end; old messages are counted once), tokenizes at most exactBudget new
// bytes per call and extrapolates the rest from the ratio it measured, and
// samples very long texts instead of tokenizing them whole.
const (
	// exactBudget caps the uncached bytes tokenized exactly in one call.
	exactBudget = 256 << 10
	// samplePrefix is how much of a text longer than maxExactPiece is
	// tokenized to estimate its count.
	samplePrefix  = 16 << 10
	maxExactPiece = 64 << 10
	// maxCacheEntries bounds the cache (about 100 bytes per entry; the keys
	// share memory with the messages). It is cleared when full.
	maxCacheEntries = 1 << 17
	// bytesPerToken is the fallback ratio when nothing could be measured.
	bytesPerToken = 4
	// Per-item framing overheads, roughly what chat formats add.
	perMessage  = 4
	perToolCall = 3
	// ImageTokens is what one image is counted as, whatever its bytes: a
	// picture within the 1568-pixel limit costs a model at most about
	// 1600 tokens (Anthropic: width×height/750), and its base64 length
	// says nothing about that.
	ImageTokens = 1600
	perToolDef  = 8
)

var (
	codecOnce   sync.Once
	sharedCodec *codec.Codec
)

// loadCodec builds the o200k codec once. The vocabulary is compiled into the
// binary, so this works offline; the first call takes tens of milliseconds.
func loadCodec() *codec.Codec {
	codecOnce.Do(func() {
		defer func() {
			if recover() != nil {
				sharedCodec = nil // fall back to bytes/4
			}
		}()
		sharedCodec = codec.NewO200kBase()
	})
	return sharedCodec
}

// estimator counts tokens with a cache of per-text counts. It is safe for
// concurrent use.
type estimator struct {
	mu    sync.Mutex
	cache map[string]int
	// count is the exact counter; nil means the bytes/4 fallback.
	count func(string) (int, bool)
}

func newEstimator() *estimator {
	e := &estimator{cache: make(map[string]int)}
	if c := loadCodec(); c != nil {
		e.count = func(s string) (int, bool) {
			n, err := c.Count(s)
			return n, err == nil
		}
	}
	return e
}

var (
	defaultOnce sync.Once
	defaultEst  *estimator
)

// EstimateTokens estimates how many tokens a request with this system prompt,
// messages and tool definitions occupies in the model's context. It counts
// with the o200k_base BPE where it can and falls back to about four bytes per
// token; on large histories it is incremental (texts already seen are not
// counted again) and bounded per call, so it is cheap to call before every
// model call. It is safe for concurrent use.
func EstimateTokens(system string, msgs []llm.Message, tools []llm.ToolDef) int {
	defaultOnce.Do(func() { defaultEst = newEstimator() })
	return defaultEst.estimate(system, msgs, tools)
}

func (e *estimator) estimate(system string, msgs []llm.Message, tools []llm.ToolDef) int {
	var t tally
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.cache) > maxCacheEntries {
		clear(e.cache)
	}
	e.add(&t, system)
	for i := range msgs {
		m := &msgs[i]
		t.fixed += perMessage
		e.add(&t, m.Content)
		e.add(&t, m.Reasoning)
		t.fixed += ImageTokens * len(m.Images)
		for j := range m.ToolCalls {
			t.fixed += perToolCall
			e.add(&t, m.ToolCalls[j].Name)
			e.addBytes(&t, m.ToolCalls[j].Input)
		}
		if m.Role == llm.RoleTool {
			e.add(&t, m.Name)
			t.fixed += 2 // tool_call_id: opaque, short
		}
	}
	for i := range tools {
		t.fixed += perToolDef
		e.add(&t, tools[i].Name)
		e.add(&t, tools[i].Description)
		e.addBytes(&t, tools[i].InputSchema)
	}
	return t.total()
}

// tally accumulates one call's counts. deferred holds the bytes of texts left
// uncounted once the budget ran out; they are priced at the ratio measured on
// the texts counted exactly in this call.
type tally struct {
	fixed, exact  int
	exactBytes    int
	deferredBytes int
	spent         int // uncached bytes tokenized in this call
}

func (t *tally) total() int {
	n := t.fixed + t.exact
	if t.deferredBytes > 0 {
		if t.exactBytes >= 4<<10 && t.exact > 0 {
			n += int(float64(t.deferredBytes) * float64(t.exact) / float64(t.exactBytes))
		} else {
			n += (t.deferredBytes + bytesPerToken - 1) / bytesPerToken
		}
	}
	return n
}

func (e *estimator) add(t *tally, s string) {
	if s == "" {
		return
	}
	if n, ok := e.cache[s]; ok {
		t.exact += n
		t.exactBytes += len(s)
		return
	}
	e.addNew(t, s)
}

// addBytes is add for raw JSON; the map lookup with string(b) does not copy,
// so cached inputs cost no allocation.
func (e *estimator) addBytes(t *tally, b []byte) {
	if len(b) == 0 {
		return
	}
	if n, ok := e.cache[string(b)]; ok {
		t.exact += n
		t.exactBytes += len(b)
		return
	}
	e.addNew(t, string(b))
}

func (e *estimator) addNew(t *tally, s string) {
	if e.count == nil || t.spent >= exactBudget {
		t.deferredBytes += len(s)
		return
	}
	n, ok := e.measure(s)
	if !ok {
		t.deferredBytes += len(s)
		return
	}
	if len(s) > maxExactPiece {
		t.spent += samplePrefix
	} else {
		t.spent += len(s)
	}
	t.exact += n
	t.exactBytes += len(s)
	e.cache[s] = n
}

// measure counts s exactly, or, when s is very long, counts a prefix and
// scales it to the whole length.
func (e *estimator) measure(s string) (int, bool) {
	if len(s) <= maxExactPiece {
		return e.count(s)
	}
	cut := samplePrefix
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	n, ok := e.count(s[:cut])
	if !ok || cut == 0 {
		return 0, false
	}
	return int(float64(n) * float64(len(s)) / float64(cut)), true
}

// TokenBound is an upper bound of EstimateTokens, computed from byte
// lengths alone: a BPE token covers at least one byte, and the estimate
// never prices a byte above one token. It costs no tokenizer (whose
// vocabulary takes tens of milliseconds and megabytes to load), so a
// caller asking "could this pass a threshold?" asks it first and counts
// exactly only when the bound says it could.
func TokenBound(system string, msgs []llm.Message, tools []llm.ToolDef) int {
	n := len(system)
	for i := range msgs {
		m := &msgs[i]
		n += perMessage + len(m.Content) + len(m.Reasoning) + ImageTokens*len(m.Images)
		for j := range m.ToolCalls {
			n += perToolCall + len(m.ToolCalls[j].Name) + len(m.ToolCalls[j].Input)
		}
		if m.Role == llm.RoleTool {
			n += len(m.Name) + 2
		}
	}
	for i := range tools {
		n += perToolDef + len(tools[i].Name) + len(tools[i].Description) + len(tools[i].InputSchema)
	}
	return n
}
