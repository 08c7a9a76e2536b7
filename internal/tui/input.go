package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

const maxInputLines = 8

// input is the prompt editor: multi-line (Shift+Enter, Alt+Enter or Ctrl+J
// insert a newline; Enter sends), history on ↑/↓ when the editor is empty
// or already browsing, bracketed paste, and Tab completion of slash commands.
type input struct {
	ta      textarea.Model
	history []string
	histPos int // == len(history) when not browsing

	// Ctrl+R history search.
	search *historySearch

	// pastes holds large pasted texts shown as placeholders in the editor
	// ("[pasted #1: 120 lines]") and put back when the message is taken.
	pastes map[string]string
	nPaste int
}

// historySearch is an open Ctrl+R search.
type historySearch struct {
	query string
	match int    // index into history of the shown match, -1 for none
	saved string // the editor's text before the search
}

func newInput() input {
	ta := textarea.New()
	ta.Prompt = "│ "
	ta.Placeholder = "Ask harness9 to do something — / for commands, Shift+Tab to switch mode"
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = maxInputLines
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "alt+enter", "ctrl+j"))
	st := ta.Styles()
	st.Focused.CursorLine = lipgloss.NewStyle()
	st.Focused.Placeholder = dimStyle
	st.Cursor.Blink = false
	ta.SetStyles(st)
	ta.Focus()
	return input{ta: ta}
}

// setAccent colours the prompt bar with the mode's accent.
func (in *input) setAccent(st lipgloss.Style) {
	styles := in.ta.Styles()
	styles.Focused.Prompt = st
	styles.Blurred.Prompt = st
	in.ta.SetStyles(styles)
}

func (in *input) setWidth(w int) { in.ta.SetWidth(max(w, 10)) }

func (in *input) value() string { return in.ta.Value() }

func (in *input) setValue(s string) {
	in.ta.SetValue(s)
	in.ta.MoveToEnd()
}

// restore puts text taken from the editor back (queued messages of a
// cancelled turn, a dialog's note, a prompt that could not be sent). A
// draft written meanwhile is kept, after it: nothing typed is overwritten.
func (in *input) restore(text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	if draft := strings.TrimSpace(in.ta.Value()); draft != "" && draft != text {
		text += "\n" + in.ta.Value()
	}
	in.setValue(text)
}

// isNewline reports whether k inserts a line break in the editor.
func (in *input) isNewline(k tea.KeyPressMsg) bool {
	return key.Matches(k, in.ta.KeyMap.InsertNewline)
}

// take returns the text, records it in the history and clears the editor.
// Paste placeholders are replaced by what was pasted.
func (in *input) take() string {
	s := strings.TrimSpace(in.expandPastes(in.ta.Value()))
	in.pastes = nil
	if s != "" && (len(in.history) == 0 || in.history[len(in.history)-1] != s) {
		in.history = append(in.history, s)
	}
	in.histPos = len(in.history)
	in.ta.Reset()
	return s
}

// setHistory puts the entries loaded at start before this run's own.
func (in *input) setHistory(entries []string) {
	in.history = append(append([]string(nil), entries...), in.history...)
	in.histPos = len(in.history)
}

// browsing reports whether ↑/↓ should walk the history instead of moving
// the cursor.
func (in *input) browsing() bool {
	return in.ta.Value() == "" || (in.histPos < len(in.history) && in.ta.Value() == in.history[in.histPos])
}

func (in *input) historyUp() {
	if in.histPos > 0 {
		in.histPos--
		in.setValue(in.history[in.histPos])
	}
}

func (in *input) historyDown() {
	if in.histPos < len(in.history)-1 {
		in.histPos++
		in.setValue(in.history[in.histPos])
		return
	}
	in.histPos = len(in.history)
	in.ta.Reset()
}

// complete expands a slash command prefix. With several matches it fills
// the common prefix and returns the candidates for a hint line.
func (in *input) complete(commands []command) []string {
	v := in.ta.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	var matches []string
	for _, c := range commands {
		if strings.HasPrefix(c.name, v) {
			matches = append(matches, c.name)
		}
	}
	switch len(matches) {
	case 0:
		return nil
	case 1:
		in.setValue(matches[0] + " ")
		return nil
	}
	prefix := matches[0]
	for _, m := range matches[1:] {
		for !strings.HasPrefix(m, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	in.setValue(prefix)
	return matches
}

func (in *input) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	return cmd
}

func (in *input) view() string { return in.ta.View() }

// continuation turns a line that ends in a backslash into a newline, as a
// shell does, and reports whether it did (Enter then does not send).
func (in *input) continuation() bool {
	v := in.ta.Value()
	if !strings.HasSuffix(v, "\\") || strings.HasSuffix(v, "\\\\") {
		return false
	}
	in.setValue(strings.TrimSuffix(v, "\\") + "\n")
	return true
}

// Large pastes: more than this many lines or bytes become a placeholder.
const (
	pasteMaxLines = 10
	pasteMaxBytes = 1000
)

// paste inserts pasted text: small pastes as they are, large ones as a
// placeholder that take expands, so the editor stays usable.
func (in *input) paste(msg tea.PasteMsg) tea.Cmd {
	text := normalizeNewlines(msg.Content)
	msg.Content = text
	lines := strings.Count(text, "\n") + 1
	if lines <= pasteMaxLines && len(text) <= pasteMaxBytes {
		return in.update(msg)
	}
	in.nPaste++
	label := "[pasted #" + itoa(in.nPaste) + ": " + itoa(lines) + " lines]"
	if lines == 1 {
		label = "[pasted #" + itoa(in.nPaste) + ": " + itoa(len(text)) + " characters]"
	}
	if in.pastes == nil {
		in.pastes = map[string]string{}
	}
	in.pastes[label] = text
	in.ta.InsertString(label)
	return nil
}

// normalizeNewlines turns CRLF and lone CR line breaks into LF.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// expandPastes puts pasted texts back in place of their placeholders.
func (in *input) expandPastes(s string) string {
	for label, text := range in.pastes {
		s = strings.Replace(s, label, text, 1)
	}
	return s
}

func (in *input) searching() bool { return in.search != nil }

// startSearch opens Ctrl+R search over the history, newest first.
func (in *input) startSearch() {
	in.search = &historySearch{match: -1, saved: in.ta.Value()}
	in.searchFrom(len(in.history) - 1)
}

// searchFrom shows the newest entry at or before index i that contains the
// query (case-insensitive).
func (in *input) searchFrom(i int) bool {
	q := strings.ToLower(in.search.query)
	for ; i >= 0; i-- {
		if strings.Contains(strings.ToLower(in.history[i]), q) {
			in.search.match = i
			in.ta.SetValue(in.history[i])
			return true
		}
	}
	return false
}

func (in *input) searchType(t string) {
	in.search.query += t
	start := in.search.match
	if start < 0 {
		start = len(in.history) - 1
	}
	if !in.searchFrom(start) {
		in.search.match = -1
	}
}

func (in *input) searchBackspace() {
	if q := []rune(in.search.query); len(q) > 0 {
		in.search.query = string(q[:len(q)-1])
		in.searchFrom(len(in.history) - 1)
	}
}

// searchOlder goes to the next older match (Ctrl+R again).
func (in *input) searchOlder() {
	if in.search.match > 0 {
		in.searchFrom(in.search.match - 1)
	}
}

// searchNewer goes back to a newer match.
func (in *input) searchNewer() {
	q := strings.ToLower(in.search.query)
	for i := in.search.match + 1; i >= 1 && i < len(in.history); i++ {
		if strings.Contains(strings.ToLower(in.history[i]), q) {
			in.search.match = i
			in.ta.SetValue(in.history[i])
			return
		}
	}
}

// endSearch closes the search, keeping the match in the editor (accept) or
// restoring what was there.
func (in *input) endSearch(accept bool) {
	s := in.search
	in.search = nil
	if accept && s.match >= 0 {
		in.setValue(in.history[s.match])
		in.histPos = s.match
		return
	}
	in.setValue(s.saved)
}

// searchLine is the status line of an open search.
func (in *input) searchLine() string {
	s := in.search
	state := "history search"
	if s.match < 0 && s.query != "" {
		state = "no match"
	}
	return state + ": " + s.query + "▏ · Ctrl+R older · Enter use · Esc cancel"
}

// mention returns the @path being typed at the end of the editor, without
// its "@"; ok is false when the last word is not a mention.
func (in *input) mention() (prefix string, ok bool) {
	v := in.ta.Value()
	word := v[strings.LastIndexAny(v, " \n\t")+1:]
	if !strings.HasPrefix(word, "@") {
		return "", false
	}
	return word[1:], true
}

// replaceMention replaces the @path at the end of the editor with path.
func (in *input) replaceMention(path string) {
	v := in.ta.Value()
	i := strings.LastIndexAny(v, " \n\t")
	in.setValue(v[:i+1] + "@" + path)
}
