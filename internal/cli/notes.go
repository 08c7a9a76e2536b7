package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/harness9/harness9/internal/otelsetup"
)

// The TUI's notes. While the TUI draws, a line written to the terminal
// would land in the middle of its screen: the runtime's notices (a
// project's servers not started) and the log's warnings (a skill skipped)
// go to a noteSink instead, and the TUI shows them as notes.

// withNotices sends the runtime's notices to w instead of stderr.
func withNotices(w io.Writer) runtimeOption {
	return func(o *runtimeOptions) { o.notices = w }
}

// noteSink carries lines to the TUI. Lines are dropped, never waited for,
// once the TUI is behind by the channel's capacity.
type noteSink struct{ ch chan string }

func newNoteSink() *noteSink { return &noteSink{ch: make(chan string, 256)} }

func (s *noteSink) Write(p []byte) (int, error) {
	for _, line := range strings.Split(string(p), "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "harness9: "))
		if line == "" {
			continue
		}
		select {
		case s.ch <- line:
		default:
		}
	}
	return len(p), nil
}

// logToNotes makes the log write to sink, as readable lines, when it would
// have written to the terminal (no --log-file).
func (e *env) logToNotes(sink io.Writer) {
	if e.logger != nil && !e.logToTerminal {
		return
	}
	e.logger = slog.New(otelsetup.LogHandler(&lineHandler{mu: &sync.Mutex{}, w: sink, level: e.logLevel}))
}

// lineHandler writes a record as one line a person reads: "warning: skill
// skipped: problem=…", not a log format's key=value dump.
type lineHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Level
	attrs []slog.Attr
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= max(h.level, slog.LevelWarn)
}

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	if r.Level >= slog.LevelError {
		b.WriteString("error: ")
	} else {
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	var kv []string
	add := func(a slog.Attr) bool {
		if a.Key != "trace_id" && a.Key != "span_id" {
			kv = append(kv, fmt.Sprintf("%s=%v", a.Key, a.Value.Resolve()))
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	if len(kv) > 0 {
		b.WriteString(": " + strings.Join(kv, ", "))
	}
	b.WriteString("\n")
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &lineHandler{mu: h.mu, w: h.w, level: h.level, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *lineHandler) WithGroup(string) slog.Handler { return h }
