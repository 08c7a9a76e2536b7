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

// take returns the text, records it in the history and clears the editor.
func (in *input) take() string {
	s := strings.TrimSpace(in.ta.Value())
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
func (in *input) complete() []string {
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
