package service

import (
	"testing"

	"github.com/harness9/harness9/internal/lib/eventjson"
)

// TestCursorBeyondLastReplaysAll: a Last-Event-ID with this process's epoch
// but a number it never sent gets every kept event, not the ones after a
// number that does not exist yet (which would skip the next events, or with
// a large number, all of them).
func TestCursorBeyondLastReplaysAll(t *testing.T) {
	h := newHub(16)
	for range 3 {
		h.publish(eventjson.Object{}.Set("type", "text", "text", "x"))
	}
	for id, want := range map[string]int{
		h.id(2):               1, // a real id: what came after it
		h.id(3):               0,
		h.id(4):               3, // one beyond the newest
		h.id(1012):            3,
		"0-2":                 3, // another process's
		"":                    3,
		h.epoch + "-nonsense": 3,
	} {
		got, _ := h.after(h.cursor(id))
		if len(got) != want {
			t.Errorf("Last-Event-ID %q: %d events replayed, want %d", id, len(got), want)
		}
	}
	h.publish(eventjson.Object{}.Set("type", "text", "text", "y"))
	if got, _ := h.after(h.cursor(h.id(4))); len(got) != 0 {
		t.Errorf("once event 4 was sent, its id must resume after it; got %d events", len(got))
	}
}
