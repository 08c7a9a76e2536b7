package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/tool"
)

// inputDialog is a running tool's question (an MCP server's elicitation):
// a form of one text field per value, filled with the defaults, or a page
// to open. Tab and ↑/↓ move between fields, Enter sends the form once
// every value is valid, Esc declines, Ctrl+C cancels. It is guarded like
// every deciding dialog, so an Enter typed ahead sends nothing.
type inputDialog struct {
	req    *agent.InputRequest
	fields []textinput.Model
	focus  int
	bad    string // why the last Enter sent nothing
	top    int    // first field row shown when the form does not fit
}

func newInputDialog(req *agent.InputRequest) *inputDialog {
	d := &inputDialog{req: req}
	for _, f := range req.Question.Fields {
		ti := newField("", fieldHint(f))
		ti.SetValue(defaultText(f))
		ti.Blur()
		d.fields = append(d.fields, ti)
	}
	if len(d.fields) > 0 {
		d.fields[0].Focus()
	}
	return d
}

// fieldHint is the placeholder of f's text field: how to write its value.
func fieldHint(f tool.Field) string {
	switch f.Kind {
	case tool.FieldBoolean:
		return "yes or no"
	case tool.FieldChoice:
		return "one of: " + strings.Join(optionNames(f), ", ")
	case tool.FieldChoices:
		return "any of, comma-separated: " + strings.Join(optionNames(f), ", ")
	case tool.FieldNumber, tool.FieldInteger:
		return string(f.Kind)
	}
	if f.Format != "" {
		return f.Format
	}
	return "text"
}

// optionNames are a choice's options as the user writes them.
func optionNames(f tool.Field) []string {
	var out []string
	for _, o := range f.Options {
		out = append(out, o.Label)
	}
	return out
}

// defaultText is f's default as the field's text.
func defaultText(f tool.Field) string {
	switch v := f.Default.(type) {
	case string:
		return optionLabel(f, v)
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []string:
		var labels []string
		for _, s := range v {
			labels = append(labels, optionLabel(f, s))
		}
		return strings.Join(labels, ", ")
	}
	return ""
}

// optionLabel is the label of a choice's value (the value itself otherwise).
func optionLabel(f tool.Field, value string) string {
	for _, o := range f.Options {
		if o.Value == value && o.Label != "" {
			return o.Label
		}
	}
	return value
}

// optionValue is the value of the option s names by label or value.
func optionValue(f tool.Field, s string) (string, bool) {
	for _, o := range f.Options {
		if strings.EqualFold(o.Label, s) || o.Value == s {
			return o.Value, true
		}
	}
	return "", false
}

// parseField reads f's value from text; ok is false with no value when the
// text is empty.
func parseField(f tool.Field, text string) (v any, ok bool, err error) {
	text = strings.TrimSpace(text)
	if text == "" {
		if f.Required {
			return nil, false, fmt.Errorf("%s is required", fieldName(f))
		}
		return nil, false, nil
	}
	switch f.Kind {
	case tool.FieldBoolean:
		switch strings.ToLower(text) {
		case "y", "yes", "true":
			return true, true, nil
		case "n", "no", "false":
			return false, true, nil
		}
		return nil, false, fmt.Errorf("%s: yes or no", fieldName(f))
	case tool.FieldNumber, tool.FieldInteger:
		n, err := strconv.ParseFloat(text, 64)
		if err != nil || (f.Kind == tool.FieldInteger && n != float64(int64(n))) {
			return nil, false, fmt.Errorf("%s: not a%s", fieldName(f), map[bool]string{true: "n integer", false: " number"}[f.Kind == tool.FieldInteger])
		}
		if (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
			return nil, false, fmt.Errorf("%s: out of range", fieldName(f))
		}
		if f.Kind == tool.FieldInteger {
			return int64(n), true, nil
		}
		return n, true, nil
	case tool.FieldChoice:
		if v, ok := optionValue(f, text); ok {
			return v, true, nil
		}
		return nil, false, fmt.Errorf("%s: one of %s", fieldName(f), strings.Join(optionNames(f), ", "))
	case tool.FieldChoices:
		var vs []string
		for s := range strings.SplitSeq(text, ",") {
			v, ok := optionValue(f, strings.TrimSpace(s))
			if !ok {
				return nil, false, fmt.Errorf("%s: %q is not one of %s", fieldName(f), strings.TrimSpace(s), strings.Join(optionNames(f), ", "))
			}
			if !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
		if (f.Min != nil && float64(len(vs)) < *f.Min) || (f.Max != nil && float64(len(vs)) > *f.Max) {
			return nil, false, fmt.Errorf("%s: wrong number of choices", fieldName(f))
		}
		return vs, true, nil
	}
	n := float64(len([]rune(text)))
	if (f.Min != nil && n < *f.Min) || (f.Max != nil && n > *f.Max) {
		return nil, false, fmt.Errorf("%s: wrong length", fieldName(f))
	}
	return text, true, nil
}

func fieldName(f tool.Field) string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

func (d *inputDialog) decides() bool { return true }

// key implements dialog.
func (d *inputDialog) key(k tea.KeyPressMsg) (outcome, bool, tea.Cmd) {
	switch k.String() {
	case "esc":
		return d.answer(tool.Answer{Action: tool.Decline}), true, nil
	case "tab", "down":
		d.move(1)
		return nil, false, nil
	case "shift+tab", "up":
		d.move(-1)
		return nil, false, nil
	case "enter":
		if d.req.Question.URL != "" {
			return d.answer(tool.Answer{Action: tool.Accept}), true, nil
		}
		values := map[string]any{}
		for i, f := range d.req.Question.Fields {
			v, ok, err := parseField(f, d.fields[i].Value())
			if err != nil {
				d.bad = err.Error()
				d.focusOn(i)
				return nil, false, nil
			}
			if ok {
				values[f.Name] = v
			}
		}
		return d.answer(tool.Answer{Action: tool.Accept, Values: values}), true, nil
	}
	if len(d.fields) > 0 && (isText(k) || isEditKey(k)) {
		return nil, false, fieldInput(&d.fields[d.focus], k)
	}
	return nil, false, nil
}

func (d *inputDialog) move(by int) {
	if len(d.fields) > 0 {
		d.focusOn((d.focus + by + len(d.fields)) % len(d.fields))
	}
}

func (d *inputDialog) focusOn(i int) {
	d.fields[d.focus].Blur()
	d.focus = i
	d.fields[i].Focus()
}

// answer is the outcome that sends a and says so in the transcript.
func (d *inputDialog) answer(a tool.Answer) outcome {
	return func(m *model) tea.Cmd {
		d.req.Respond(a)
		from := termtext.Clean(d.req.Question.From)
		switch a.Action {
		case tool.Accept:
			m.note("answered " + from)
		case tool.Decline:
			m.note("declined " + from + "'s request")
		default:
			m.note("cancelled " + from + "'s request")
		}
		return m.nextInput()
	}
}

// dismiss implements dialog: Ctrl+C cancels the request.
func (d *inputDialog) dismiss() outcome { return d.answer(tool.Answer{Action: tool.Cancel}) }

func (d *inputDialog) paste(msg tea.PasteMsg) {
	if len(d.fields) > 0 {
		fieldInput(&d.fields[d.focus], msg)
	}
}

func (d *inputDialog) view(v dialogView) string {
	inner := min(v.width-4, 96)
	q := d.req.Question
	var head []string
	head = append(head, v.runTh.accent.Bold(true).Render(ansi.Truncate(termtext.Clean(q.From)+" asks for input", inner, "…")))
	// The server's own words: shown, never obeyed by the terminal.
	head = append(head, wrapLines(termtext.Clean(q.Message), inner, "")...)
	var rows []string
	if q.URL != "" {
		rows = append(rows, "open: "+ansi.Truncate(termtext.Clean(q.URL), inner-6, "…"))
	}
	labelW := 0
	for _, f := range q.Fields {
		labelW = max(labelW, min(ansi.StringWidth(termtext.Clean(fieldName(f))), inner/3))
	}
	focusRow := 0
	for i, f := range q.Fields {
		label := ansi.Truncate(termtext.Clean(fieldName(f)), labelW, "…")
		if f.Required {
			label += "*"
		}
		mark := "  "
		if i == d.focus {
			mark, focusRow = "› ", len(rows)
		}
		label = fmt.Sprintf("%s%-*s ", mark, labelW+1, label)
		rows = append(rows, label+fieldView(&d.fields[i], inner-ansi.StringWidth(label)))
		if i == d.focus && f.Description != "" {
			rows = append(rows, dimStyle.Render(ansi.Truncate("    "+termtext.Clean(f.Description), inner, "…")))
		}
	}
	help := "Tab/↑/↓ move · Enter send · Esc decline · Ctrl+C cancel"
	if q.URL != "" {
		help = "Enter: I opened it · Esc decline · Ctrl+C cancel"
	}
	var b strings.Builder
	for _, l := range head {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	// Rows: border 2, head, blank, fields, blank, error, help.
	room := max(v.room-len(head)-6, 1)
	if focusRow < d.top {
		d.top = focusRow
	} else if focusRow >= d.top+room-1 {
		d.top = focusRow - room + 2
	}
	for _, l := range scrollWindow(rows, &d.top, room) {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	if d.bad != "" {
		b.WriteString(errorStyle.Render(ansi.Truncate(termtext.Clean(d.bad), inner, "…")) + "\n")
	}
	b.WriteString(dimStyle.Render(ansi.Truncate(help, inner, "…")))
	return dialogBox(b.String(), inner, v.runTh)
}

// askInput shows a tool's question, or queues it behind the open one.
func (m *model) askInput(req *agent.InputRequest) tea.Cmd {
	if _, open := findDialog[*inputDialog](m); open {
		m.inputQueue = append(m.inputQueue, req)
		return nil
	}
	return m.openDialog(newInputDialog(req))
}

// nextInput opens the next queued question, if one waits.
func (m *model) nextInput() tea.Cmd {
	if len(m.inputQueue) == 0 {
		return nil
	}
	next := m.inputQueue[0]
	m.inputQueue = m.inputQueue[1:]
	return m.openDialog(newInputDialog(next))
}

// cancelInputs cancels every open and queued question (the turn is over).
func (m *model) cancelInputs() {
	for {
		d, ok := findDialog[*inputDialog](m)
		if !ok {
			break
		}
		d.req.Respond(tool.Answer{Action: tool.Cancel})
		m.removeDialog(d)
	}
	for _, req := range m.inputQueue {
		req.Respond(tool.Answer{Action: tool.Cancel})
	}
	m.inputQueue = nil
}
