package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/planning"
)

// reviewChoice is what the user decided about a submitted plan: one of
// planning's ReviewChoices (numbered as the options are), or one of the two
// states only the dialog has.
type reviewChoice int

const (
	reviewNone        reviewChoice = 0                                           // still deciding
	reviewApproveAuto              = reviewChoice(planning.ReviewApprove)        // [1] approve and auto-execute
	reviewApproveEdit              = reviewChoice(planning.ReviewApproveConfirm) // [2] approve, confirm each edit
	reviewRefine                   = reviewChoice(planning.ReviewRefine)         // [3] keep refining in Plan Mode
	reviewCancel                   = reviewChoice(planning.ReviewCancel)         // [4] drop the plan (confirmed)
	reviewClose                    = reviewChoice(-1)                            // Esc: close the dialog, keep the plan
)

var reviewOptions = []string{
	"Approve and auto-execute",
	"Approve and confirm each edit",
	"Keep refining (stay in Plan Mode)",
	"Cancel the plan",
}

// reviewAction is a finished review: the choice and, for refining and
// closing, what the user typed into the note field.
type reviewAction struct {
	choice   reviewChoice
	feedback string
}

// reviewDialog is seed 002's plan review dialog, made safe to type into
// (DESIGN §5): only digits and ↑/↓ (which pick) and Enter (which confirms)
// act, and only while the note field is empty. Every other character goes into the note field ("tell
// the agent what to change"), so a typed sentence followed by Enter becomes
// refine feedback and can never approve or cancel. Cancelling asks once
// more; Esc closes the dialog and keeps the plan.
type reviewDialog struct {
	plan   planning.Plan
	cursor int
	note   textinput.Model
	// confirming is true while asking whether to really cancel the plan;
	// confirmYes is the highlighted answer (No by default).
	confirming, confirmYes bool

	// digit is the digit that just picked an option, and before the
	// highlight it moved: if text follows at once, the digit was the start
	// of a sentence ("2 more tests") and goes into the note instead.
	digit     string
	digitFrom int
	top       int // first plan line shown when the plan does not fit
	rows      int // how many plan lines the last frame showed (a page)
	// body caches the rendered plan for bodyWidth.
	body      []string
	bodyWidth int
}

func newReviewDialog(p planning.Plan, note string) *reviewDialog {
	// The plan is the model's text: shown, never obeyed by the terminal.
	d := &reviewDialog{plan: cleanPlan(p), note: newField("✎ ", "type here to tell the agent what to change, then Enter")}
	if note != "" {
		d.note.SetValue(note)
		d.note.CursorEnd()
	}
	return d
}

// typing reports whether the note field holds text, which turns Enter into
// "send this feedback" and digits into text.
func (d *reviewDialog) typing() bool { return d.note.Value() != "" }

// update handles a key press and returns the user's decision, if any.
func (d *reviewDialog) update(k tea.KeyPressMsg) (reviewAction, tea.Cmd) {
	key := k.String()
	digit := d.digit
	d.digit = ""
	if d.confirming {
		switch key {
		case "1", "up":
			d.confirmYes = true
		case "2", "down":
			d.confirmYes = false
		case "esc":
			d.confirming = false
		case "enter":
			if d.confirmYes {
				return reviewAction{choice: reviewCancel}, nil
			}
			d.confirming = false
		}
		return reviewAction{}, nil // letters never confirm
	}
	switch {
	case key == "esc":
		return reviewAction{choice: reviewClose, feedback: fieldText(&d.note)}, nil
	case key == "enter" && d.typing():
		if fb := fieldText(&d.note); fb != "" {
			return reviewAction{choice: reviewRefine, feedback: fb}, nil
		}
		d.note.Reset() // only blanks: nothing to send
	case key == "enter":
		return d.choose(d.cursor + 1), nil
	case key == "pgup":
		d.top -= max(d.rows-2, 1)
	case key == "pgdown":
		d.top += max(d.rows-2, 1)
	case d.typing() && (isText(k) || isEditKey(k)):
		return reviewAction{}, fieldInput(&d.note, k)
	case key == "up" && !d.typing():
		d.cursor = max(d.cursor-1, 0)
	case key == "down" && !d.typing():
		d.cursor = min(d.cursor+1, len(reviewOptions)-1)
	case len(key) == 1 && key >= "1" && key <= "4":
		// A digit picks, Enter confirms: a sentence that starts with a
		// number ("2 more tests⏎") becomes a note, never an approval.
		d.digit, d.digitFrom = key, d.cursor
		d.cursor = int(key[0] - '1')
	case isText(k) && digit != "":
		d.cursor = d.digitFrom
		d.note.SetValue(digit)
		d.note.CursorEnd()
		return reviewAction{}, fieldInput(&d.note, k)
	case isText(k) && k.Text != " ":
		// The first character of a note; a leading blank is not one.
		return reviewAction{}, fieldInput(&d.note, k)
	}
	return reviewAction{}, nil
}

func (d *reviewDialog) decides() bool { return true }

// key implements dialog.
func (d *reviewDialog) key(k tea.KeyPressMsg) (outcome, bool, tea.Cmd) {
	act, cmd := d.update(k)
	if act.choice == reviewNone {
		return nil, false, cmd
	}
	return func(m *model) tea.Cmd { return m.reviewed(act) }, true, cmd
}

// dismiss implements dialog: the plan is kept and a typed note goes to
// the editor.
func (d *reviewDialog) dismiss() outcome {
	note := fieldText(&d.note)
	return func(m *model) tea.Cmd {
		m.closeReview(note)
		return nil
	}
}

// choose acts on option n (1-based); cancelling asks first.
func (d *reviewDialog) choose(n int) reviewAction {
	if reviewChoice(n) == reviewCancel {
		d.confirming, d.confirmYes = true, false
		d.cursor = n - 1
		return reviewAction{}
	}
	return reviewAction{choice: reviewChoice(n)}
}

// paste puts pasted text into the note field.
func (d *reviewDialog) paste(msg tea.PasteMsg) {
	if !d.confirming {
		fieldInput(&d.note, msg)
	}
}

// view implements dialog.
func (d *reviewDialog) view(v dialogView) string { return d.render(v.width, v.room, v.th, v.md) }

// render draws the dialog at most width columns wide and maxHeight rows
// high. The plan (its markdown content and steps) scrolls inside; the
// options and the note field always stay visible.
func (d *reviewDialog) render(width, maxHeight int, th theme, md *markdown) string {
	inner := max(min(width-4, 100), 10)
	if d.body == nil || d.bodyWidth != inner {
		d.body, d.bodyWidth = planLines(&d.plan, inner, md), inner
	}
	title := d.plan.Title
	if title == "" {
		title = "(untitled plan)"
	}
	head := ansi.Truncate(th.accent.Bold(true).Render("Plan ready for review: ")+boldStyle.Render(title), inner, "…")

	var tail []string
	if d.confirming {
		tail = append(tail, warnStyle.Render("Cancel this plan? It is discarded with its todo list."))
		for i, o := range []string{"Yes, discard the plan", "No, go back to the review"} {
			tail = append(tail, optionLines(i+1, o, (i == 0) == d.confirmYes, false, inner, th)...)
		}
		tail = append(tail, "", dimStyle.Render(ansi.Truncate("1–2 or ↑/↓ pick · Enter confirms · Esc goes back", inner, "…")))
	} else {
		for i, o := range reviewOptions {
			tail = append(tail, optionLines(i+1, o, i == d.cursor && !d.typing(), d.typing(), inner, th)...)
		}
		tail = append(tail, "", fieldView(&d.note, inner))
		help := "1–4 or ↑/↓ pick · Enter confirms · typing writes a note · Esc closes (plan kept, /review reopens)"
		if d.typing() {
			help = "Enter sends the note and keeps refining · clear it to choose an option · Esc closes"
		}
		tail = append(tail, dimStyle.Render(ansi.Truncate(help, inner, "…")))
	}
	// Rows: border 2, head, blank, body, blank, tail.
	room := maxHeight - 2 - 1 - len(tail)
	sep := room-2 >= min(len(d.body), 3) // blank lines only when there is room
	if sep {
		room -= 2
	}
	d.rows = max(room, 1)
	body := scrollWindow(d.body, &d.top, d.rows)
	lines := []string{head}
	if sep {
		lines = append(lines, "")
	}
	lines = append(lines, body...)
	if sep {
		lines = append(lines, "")
	}
	lines = append(lines, tail...)
	return dialogBox(strings.Join(lines, "\n"), inner, th)
}

// optionLine is one numbered option on one line, cut to fit (a picker's
// list), highlighted or (while a note is being typed, when options do not
// react) dimmed.
func optionLine(n int, text string, selected, dim bool, inner int, th theme) string {
	return styleOption(ansi.Truncate(fmt.Sprintf("[%d] %s", n, text), inner-2, "…"), true, selected, dim, th)
}

// optionLines is an option of a question, wrapped rather than cut: what
// an answer does is read whole.
func optionLines(n int, text string, selected, dim bool, inner int, th theme) []string {
	lines := wrapText(fmt.Sprintf("[%d] %s", n, text), max(inner-2, 8))
	for i, l := range lines {
		if i > 0 {
			l = "    " + strings.TrimLeft(l, " ")
			l = ansi.Truncate(l, inner-2, "…")
		}
		lines[i] = styleOption(l, i == 0, selected, dim, th)
	}
	return lines
}

func styleOption(line string, first, selected, dim bool, th theme) string {
	mark := "  "
	if selected && first {
		mark = "› "
	}
	switch {
	case selected:
		return th.accent.Bold(true).Render(mark + line)
	case dim:
		return dimStyle.Render(mark + line)
	}
	return mark + line
}

// planLines renders a plan for the dialog and the transcript: its markdown
// content, then the numbered steps.
func planLines(p *planning.Plan, width int, md *markdown) []string {
	var out []string
	if c := strings.TrimSpace(p.Content); c != "" {
		for _, l := range md.render(expandTabs(c), width) {
			out = append(out, ansi.Truncate(l, width, "…"))
		}
		out = append(out, "")
	}
	out = append(out, boldStyle.Render("Steps"))
	for i, s := range p.Steps {
		out = append(out, wrapLines(fmt.Sprintf("%d. %s", i+1, s), width, "  ")...)
	}
	return out
}

// dialogBox wraps content in seed 002's rounded border.
func dialogBox(content string, inner int, th theme) string {
	return lipgloss.NewStyle().
		Border(lipgloss.RoundedBorder()).
		BorderForeground(th.border.GetForeground()).
		Padding(0, 1).
		Width(inner + 4).
		Render(content)
}
