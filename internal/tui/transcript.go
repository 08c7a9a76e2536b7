package tui

import "strings"

// transcript is the scrollable conversation. Each block caches its rendered
// lines for one width, and a frame only touches the blocks it shows, so the
// cost of a frame does not grow with the session and typing a key never
// re-renders the history.
//
// The scroll position is an anchor (block, line within block) rather than a
// global line number: a resize invalidates the caches but the anchor keeps
// the same content at the top of the screen, and no block outside the
// screen has to be re-rendered to know where things are.
type transcript struct {
	blocks []*block
	width  int
	height int
	md     *markdown

	follow     bool // stick to the tail
	anchor     int  // first visible block when !follow
	anchorLine int  // first visible line of that block

	// printed counts the blocks already in the terminal's scrollback
	// (inline rendering).
	printed int
}

func newTranscript() *transcript {
	return &transcript{follow: true, md: newMarkdown()}
}

// setSize changes the viewport; blocks re-render lazily at the new width.
func (t *transcript) setSize(w, h int) {
	t.width, t.height = max(w, 10), max(h, 1)
	if !t.follow && t.anchor < len(t.blocks) {
		// Keep the same block on top; its line offset scales with its new height.
		b := t.blocks[t.anchor]
		old := len(b.lines)
		n := len(t.linesOf(t.anchor))
		if old > 0 && b.width != t.width {
			t.anchorLine = t.anchorLine * n / old
		}
		t.anchorLine = min(t.anchorLine, max(n-1, 0))
	}
}

// add appends a block and returns it.
func (t *transcript) add(b *block) *block {
	t.blocks = append(t.blocks, b)
	return b
}

// drop removes b, a block not yet in the scrollback (a streamed answer
// the model is giving again).
func (t *transcript) drop(b *block) {
	for i := len(t.blocks) - 1; i >= t.printed; i-- {
		if t.blocks[i] == b {
			t.blocks = append(t.blocks[:i], t.blocks[i+1:]...)
			if !t.follow && t.anchor >= len(t.blocks) {
				t.follow = true
			}
			return
		}
	}
}

// clear drops every block (a new session).
func (t *transcript) clear() {
	t.blocks = nil
	t.follow, t.anchor, t.anchorLine, t.printed = true, 0, 0, 0
}

// linesOf returns block i's lines rendered for the current width.
func (t *transcript) linesOf(i int) []string {
	b := t.blocks[i]
	if b.dirty || b.width != t.width || b.lines == nil {
		b.lines = b.render(t.width, t.md)
		b.width = t.width
		b.dirty = false
	}
	return b.lines
}

// topAnchor returns the anchor that shows the tail (what follow mode shows).
func (t *transcript) topAnchor() (int, int) {
	need := t.height
	for i := len(t.blocks) - 1; i >= 0; i-- {
		n := len(t.linesOf(i))
		if n >= need {
			return i, n - need
		}
		need -= n
	}
	return 0, 0
}

// scroll moves the view by delta lines (negative = up).
func (t *transcript) scroll(delta int) {
	if len(t.blocks) == 0 {
		return
	}
	if t.follow {
		if delta >= 0 {
			return
		}
		t.anchor, t.anchorLine = t.topAnchor()
		t.follow = false
	}
	i, l := t.anchor, t.anchorLine+delta
	for l < 0 && i > 0 {
		i--
		l += len(t.linesOf(i))
	}
	if l < 0 {
		l = 0
	}
	for i < len(t.blocks) && l >= len(t.linesOf(i)) {
		l -= len(t.linesOf(i))
		i++
	}
	if i >= len(t.blocks) {
		t.follow = true
		return
	}
	t.anchor, t.anchorLine = i, l
	// Reaching the point where the tail fits on screen resumes following.
	ti, tl := t.topAnchor()
	if i > ti || (i == ti && l >= tl) {
		t.follow = true
	}
}

// toEnd follows the tail again.
func (t *transcript) toEnd() { t.follow = true }

// toStart shows the first line.
func (t *transcript) toStart() {
	if len(t.blocks) == 0 {
		return
	}
	t.follow, t.anchor, t.anchorLine = false, 0, 0
	if ti, tl := t.topAnchor(); ti == 0 && tl == 0 {
		t.follow = true
	}
}

// view renders exactly height lines.
func (t *transcript) view() string {
	var out []string
	if t.follow {
		i, l := t.topAnchor()
		out = t.collect(i, l)
	} else {
		out = t.collect(t.anchor, t.anchorLine)
	}
	for len(out) < t.height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

func (t *transcript) collect(i, l int) []string {
	out := make([]string, 0, t.height)
	for ; i < len(t.blocks) && len(out) < t.height; i++ {
		lines := t.linesOf(i)
		if l < len(lines) {
			out = append(out, lines[l:min(len(lines), l+t.height-len(out))]...)
		}
		l = 0
	}
	return out
}
