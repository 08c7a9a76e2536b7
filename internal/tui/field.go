package tui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// newField returns the one-line text field a dialog writes a note into
// (the plan feedback, a denial's reason). Its width is set for every frame
// by the dialog; without one the placeholder shows only its first letter.
func newField(prompt, placeholder string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	ti.Placeholder = placeholder
	st := ti.Styles()
	st.Cursor.Blink = false
	st.Focused.Placeholder = dimStyle
	st.Blurred.Placeholder = dimStyle
	ti.SetStyles(st)
	ti.SetWidth(40)
	ti.Focus()
	return ti
}

// fieldView renders f for width columns.
func fieldView(f *textinput.Model, width int) string {
	f.SetWidth(max(width-ansi.StringWidth(f.Prompt)-1, 4))
	return f.View()
}

// isText reports whether k types a character (space included) rather than
// being a command key. In a dialog, text always goes to its note field, so
// a sentence typed into a dialog can never choose an option.
func isText(k tea.KeyPressMsg) bool {
	if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper) != 0 {
		return false
	}
	switch k.String() {
	case "enter", "tab", "shift+tab", "esc":
		return false
	}
	return true
}

// isEditKey reports whether k edits the text of a field (moving in it or
// deleting), as opposed to acting on the dialog.
func isEditKey(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "backspace", "delete", "left", "right", "home", "end", "ctrl+a", "ctrl+e",
		"ctrl+w", "ctrl+u", "ctrl+k", "alt+backspace", "ctrl+h", "ctrl+d", "alt+left", "alt+right":
		return true
	}
	return false
}

// fieldInput feeds a key or paste to f.
func fieldInput(f *textinput.Model, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*f, cmd = f.Update(msg)
	return cmd
}

// fieldText is f's text without surrounding blanks.
func fieldText(f *textinput.Model) string { return strings.TrimSpace(f.Value()) }

// scrollWindow returns the lines of body to show in at most h rows starting
// near *top (clamped in place), with a dim line saying where the user is
// when not everything fits. It never returns more than h lines.
func scrollWindow(body []string, top *int, h int) []string {
	if len(body) <= h {
		*top = 0
		return body
	}
	rows := max(h-1, 1) // one row for the position line
	*top = max(0, min(*top, len(body)-rows))
	out := append([]string(nil), body[*top:*top+rows]...)
	pos := dimStyle.Render(ansi.Truncate("  ── lines "+itoa(*top+1)+"–"+itoa(*top+rows)+" of "+itoa(len(body))+
		" · PgUp/PgDn scroll ──", 200, ""))
	if h > 1 {
		out = append(out, pos)
	}
	return out
}
