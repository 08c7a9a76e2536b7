package builtin

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// shownName is how a path appears in a line-per-path listing: as it is,
// unless a newline or another control character (or invalid UTF-8) would
// break the one-path-per-line shape; then Go-quoted, which the model reads
// as the JSON string it must send back.
func shownName(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strconv.Quote(s)
}

// headTail is an io.Writer that keeps the first and the last bytes written
// to it, up to max in total, and counts what it dropped in between. Command
// output is kept this way because both ends matter: the start says what ran,
// the end says how it finished.
type headTail struct {
	mu      sync.Mutex
	max     int
	head    []byte
	tail    []byte // ring buffer of the last max/2 bytes once head is full
	tailPos int    // next write position in tail once it is full
	total   int64
}

func newHeadTail(max int) *headTail {
	return &headTail{max: max}
}

// Write implements io.Writer. It never fails.
func (w *headTail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	w.total += int64(n)
	headMax := w.max - w.max/2
	if room := headMax - len(w.head); room > 0 {
		k := min(room, len(p))
		w.head = append(w.head, p[:k]...)
		p = p[k:]
	}
	tailMax := w.max / 2
	if tailMax == 0 {
		return n, nil
	}
	if len(p) >= tailMax {
		w.tail = append(w.tail[:0], p[len(p)-tailMax:]...)
		w.tailPos = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(w.tail) < tailMax {
			k := min(tailMax-len(w.tail), len(p))
			w.tail = append(w.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(w.tail[w.tailPos:], p)
		w.tailPos = (w.tailPos + k) % tailMax
		p = p[k:]
	}
	return n, nil
}

// String returns the kept output, with a note where bytes were dropped.
func (w *headTail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	tail := append(append([]byte(nil), w.tail[w.tailPos:]...), w.tail[:w.tailPos]...)
	dropped := w.total - int64(len(w.head)) - int64(len(tail))
	if dropped <= 0 {
		return string(w.head) + string(tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes of output cut here ...]\n%s", w.head, dropped, tail)
}
