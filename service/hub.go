package service

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harness9/harness9/internal/lib/eventjson"
)

// hub keeps a session's recent events, numbered, for Server-Sent Events
// subscribers: a subscriber that reconnects with Last-Event-ID gets what it
// missed, as long as it is still in the ring.
type hub struct {
	mu      sync.Mutex
	epoch   string // tells this process's numbers from an earlier one's
	seq     uint64
	ring    []entry
	size    int
	changed chan struct{} // closed and replaced on every publish
}

type entry struct {
	seq  uint64
	typ  string
	data []byte
}

func newHub(size int) *hub {
	return &hub{epoch: strconv.FormatInt(time.Now().UnixNano(), 36), size: size, changed: make(chan struct{})}
}

// publish numbers o and hands it to every subscriber.
func (h *hub) publish(o eventjson.Object) {
	data, err := o.MarshalJSON()
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	h.ring = append(h.ring, entry{seq: h.seq, typ: o.Type(), data: data})
	if len(h.ring) > h.size {
		h.ring = h.ring[len(h.ring)-h.size:]
	}
	close(h.changed)
	h.changed = make(chan struct{})
}

// after returns the events numbered after cursor and a channel closed when
// another arrives.
func (h *hub) after(cursor uint64) ([]entry, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []entry
	for _, e := range h.ring {
		if e.seq > cursor {
			out = append(out, e)
		}
	}
	return out, h.changed
}

// id is an event's SSE id.
func (h *hub) id(seq uint64) string { return h.epoch + "-" + strconv.FormatUint(seq, 10) }

// last is the id of the newest event ("" before any).
func (h *hub) last() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.id(h.seq)
}

// cursor reads a Last-Event-ID: an id this process sent gives its number;
// anything else (another process's, none, a number it never reached)
// replays the whole ring. A number beyond the newest event cannot be one the
// client saw, and taking it would skip the events up to it.
func (h *hub) cursor(lastID string) uint64 {
	epoch, n, ok := strings.Cut(lastID, "-")
	if !ok || epoch != h.epoch {
		return 0
	}
	seq, err := strconv.ParseUint(n, 10, 64)
	if err != nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if seq > h.seq {
		return 0
	}
	return seq
}
