package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/internal/termtext"
)

// toolSource pages through the transcript's tool calls, one at a time.
type toolSource struct {
	tr *transcript
	at int // index of the shown block in tr.blocks
}

func (s *toolSource) tools() []int {
	var idx []int
	for i, b := range s.tr.blocks {
		if b.kind == blockTool {
			idx = append(idx, i)
		}
	}
	return idx
}

func (s *toolSource) content() (string, string) {
	if s.at < 0 || s.at >= len(s.tr.blocks) {
		return "tool output", ""
	}
	b := s.tr.blocks[s.at]
	all := s.tools()
	n := 0
	for i, j := range all {
		if j == s.at {
			n = i + 1
		}
	}
	title := termtext.Clean(b.name)
	if b.arg != "" {
		title += " " + strings.ReplaceAll(termtext.Clean(b.arg), "\n", " ")
	}
	state := callState(b.done, b.isError, "running", "done", "failed")
	// The position and the state first: a long command is cut at the end.
	title = fmt.Sprintf("call %d of %d · %s · %s", n, len(all), state, title)
	var text string
	switch {
	case b.sub != nil:
		text = b.sub.pagerText(termtext.Output(b.result))
	case b.done:
		text = termtext.Output(b.result)
		if strings.TrimSpace(text) == "" {
			text = "(no output)"
		}
	default:
		text = termtext.Output(b.live)
		if len(b.live) >= maxLiveOutput {
			text = fmt.Sprintf("(still running: the last %d KB of its output so far)\n", maxLiveOutput>>10) + text
		} else if strings.TrimSpace(text) == "" {
			text = "(still running, no output yet)"
		}
	}
	return title, text
}

func (s *toolSource) step(delta int) bool {
	all := s.tools()
	for i, j := range all {
		if j == s.at && i+delta >= 0 && i+delta < len(all) {
			s.at = all[i+delta]
			return true
		}
	}
	return false
}

// A failed call opens at its end, where the error is; so does a running
// one, whose output grows there.
func (s *toolSource) atEnd() bool {
	b := s.tr.blocks[s.at]
	return !b.done || b.isError
}

// callState names a call's state: running, done or failed.
func callState(done, isError bool, running, ok, failed string) string {
	switch {
	case done && isError:
		return failed
	case done:
		return ok
	}
	return running
}

// transcriptSource is the whole conversation, as the transcript draws it.
type transcriptSource struct{ tr *transcript }

func (s transcriptSource) content() (string, string) {
	var lines []string
	for i := range s.tr.blocks {
		lines = append(lines, s.tr.linesOf(i)...)
	}
	return fmt.Sprintf("Transcript — %d entries", len(s.tr.blocks)), strings.Join(lines, "\n")
}

func (transcriptSource) step(int) bool { return false }
func (transcriptSource) atEnd() bool   { return true }

// openToolPager is Ctrl+O: the newest tool call's whole output.
func (m *model) openToolPager() {
	src := &toolSource{tr: m.tr, at: -1}
	if all := src.tools(); len(all) > 0 {
		src.at = all[len(all)-1]
	}
	if src.at < 0 {
		m.hint = "no tool call to show yet (Ctrl+T shows the whole transcript)"
		return
	}
	m.pager = newPager(src)
}

// openTranscriptPager is Ctrl+T: the whole transcript, searchable.
func (m *model) openTranscriptPager() {
	if len(m.tr.blocks) == 0 {
		return
	}
	m.pager = newPager(transcriptSource{tr: m.tr})
}

// pagerKey handles a key while the pager is open.
func (m *model) pagerKey(k tea.KeyPressMsg) tea.Cmd {
	if m.pager.key(k, m.width, m.height) {
		m.pager = nil
		m.layout()
	}
	return nil
}
