package tui

import (
	"github.com/harness9/harness9/internal/termtext"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/agent"
)

// The dialog's options. The second keeps the answer for good in this
// project when a rule narrower than the whole tool covers the call (the
// request's Rules), else for this session.
const (
	optionOnce    = "Allow once"
	optionSession = "Allow for this session"
	optionProject = "Always allow in this project: "
	optionDeny    = "Deny (tell the agent why)"
)

// options are the dialog's three choices for its request.
func (d *permissionDialog) options() []string {
	second := optionSession
	if len(d.req.Rules) > 0 {
		// A rule quotes the model's command: shown, never obeyed.
		second = optionProject + termtext.Clean(strings.Join(d.req.Rules, ", "))
	}
	return []string{optionOnce, second, optionDeny}
}

// permissionDialog asks whether one tool call may run (a call the mode or
// an ask rule puts to the user). Like the review dialog, digits and ↑/↓
// pick and Enter confirms while the reason is empty; a typed character
// goes into the reason and selects Deny, so typing can never allow a call.
// Nothing is picked when it opens: Enter alone answers nothing.
type permissionDialog struct {
	req    *agent.ApprovalRequest
	cursor int // -1 until an option is picked
	reason textinput.Model
	// unpicked is set when Enter was pressed with nothing picked.
	unpicked bool

	digit   string // the digit that just picked an option (see reviewDialog)
	top     int    // first preview line shown when the preview does not fit
	rows    int    // how many preview lines the last frame showed (a page)
	preview []string
	pvWidth int
}

// permissionAnswer is a finished dialog's answer.
type permissionAnswer struct {
	decision agent.Decision
	reason   string
}

func newPermissionDialog(req *agent.ApprovalRequest) *permissionDialog {
	return &permissionDialog{req: req, cursor: -1, reason: newField("reason: ", "type why to deny (optional), then Enter")}
}

func (d *permissionDialog) typing() bool { return d.reason.Value() != "" }

// deny is the denial with the reason typed, if any (the engine tells the
// model when there is none).
func (d *permissionDialog) deny() *permissionAnswer {
	return &permissionAnswer{agent.Deny, fieldText(&d.reason)}
}

func (d *permissionDialog) decides() bool { return true }

// key implements dialog.
func (d *permissionDialog) key(k tea.KeyPressMsg) (outcome, bool, tea.Cmd) {
	ans, cmd := d.update(k)
	if ans == nil {
		return nil, false, cmd
	}
	return func(m *model) tea.Cmd { return m.answered(d, *ans) }, true, cmd
}

// dismiss implements dialog: a question closed without an answer is a
// denial (its call must not wait for an answer that never comes).
func (d *permissionDialog) dismiss() outcome {
	return func(m *model) tea.Cmd { return m.answered(d, *d.deny()) }
}

// update handles a key and returns the answer once the user has decided.
func (d *permissionDialog) update(k tea.KeyPressMsg) (*permissionAnswer, tea.Cmd) {
	key := k.String()
	digit := d.digit
	d.digit = ""
	d.unpicked = false
	switch {
	case key == "esc":
		return d.deny(), nil
	case key == "enter" && d.typing():
		return d.deny(), nil
	case key == "enter" && d.cursor < 0:
		d.unpicked = true
	case key == "enter":
		return d.choose(d.cursor + 1), nil
	case key == "pgup":
		d.top -= max(d.rows-2, 1)
	case key == "pgdown":
		d.top += max(d.rows-2, 1)
	case d.typing() && (isText(k) || isEditKey(k)):
		return nil, fieldInput(&d.reason, k)
	case key == "up" && d.cursor < 0:
		d.cursor = 2
	case key == "up":
		d.cursor = max(d.cursor-1, 0)
	case key == "down":
		d.cursor = min(d.cursor+1, 2)
	case len(key) == 1 && key >= "1" && key <= "3":
		d.cursor = int(key[0] - '1') // a digit picks, Enter confirms
		d.digit = key
	case isText(k) && digit != "":
		// The digit started a sentence: it belongs to the reason.
		d.cursor = 2
		d.reason.SetValue(digit)
		d.reason.CursorEnd()
		return nil, fieldInput(&d.reason, k)
	case isText(k) && k.Text != " ":
		// Writing a reason means denying: the highlight follows.
		d.cursor = 2
		return nil, fieldInput(&d.reason, k)
	}
	return nil, nil
}

// choose acts on option n (1-based).
func (d *permissionDialog) choose(n int) *permissionAnswer {
	switch n {
	case 1:
		return &permissionAnswer{decision: agent.AllowOnce}
	case 2:
		if len(d.req.Rules) > 0 {
			return &permissionAnswer{decision: agent.AllowProject}
		}
		return &permissionAnswer{decision: agent.AllowSession}
	}
	return d.deny()
}

// paste forwards pasted text to the reason field.
func (d *permissionDialog) paste(msg tea.PasteMsg) {
	d.cursor = 2
	fieldInput(&d.reason, msg)
}

// view implements dialog: the question belongs to the running turn and
// takes its colours.
func (d *permissionDialog) view(v dialogView) string { return d.render(v.width, v.room, v.runTh) }

// render draws the dialog within width × maxHeight; a long preview scrolls
// and the options stay visible.
func (d *permissionDialog) render(width, maxHeight int, th theme) string {
	inner := max(min(width-4, 120), 10)
	// The call is the model's: its name, argument and preview are shown
	// as written (termtext), so a carriage return or a cursor move cannot
	// show a harmless command over the one being allowed.
	call := d.req.Call
	arg := strings.ReplaceAll(termtext.Clean(keyArg(call.Name, call.Input)), "\n", " ")
	head := strings.Join(capLines(wrapText("Allow "+termtext.Clean(call.Name)+"?  "+arg, inner), 3), "\n")
	head = th.accent.Bold(true).Render(head)
	if d.req.Why != "" {
		for _, l := range capLines(wrapText("asked because "+termtext.Clean(d.req.Why), inner), 2) {
			head += "\n" + dimStyle.Render(l)
		}
	}
	if d.preview == nil || d.pvWidth != inner {
		d.preview, d.pvWidth = previewLines(termtext.Clean(d.req.Preview), inner), inner
	}
	var tail []string
	for i, o := range d.options() {
		tail = append(tail, optionLines(i+1, o, i == d.cursor, false, inner, th)...)
	}
	tail = append(tail, "", fieldView(&d.reason, inner))
	help := dimStyle.Render("1–3 or ↑/↓ pick · Enter confirms · typing writes a reason and picks Deny · Esc denies")
	switch {
	case d.typing():
		help = dimStyle.Render("Enter denies with this reason · Esc denies")
	case d.unpicked:
		help = warnStyle.Render("Nothing is picked: press 1, 2 or 3 (or ↑/↓), then Enter")
	}
	tail = append(tail, ansi.Truncate(help, inner, "…"))

	lines := []string{head}
	if len(d.preview) > 0 {
		room := maxHeight - 2 - 1 - len(tail)
		sep := room-2 >= min(len(d.preview), 3)
		if sep {
			room -= 2
			lines = append(lines, "")
		}
		d.rows = max(room, 1)
		lines = append(lines, scrollWindow(d.preview, &d.top, d.rows)...)
		if sep {
			lines = append(lines, "")
		}
	}
	lines = append(lines, tail...)
	return dialogBox(strings.Join(lines, "\n"), inner, th)
}

// previewLines renders an approval preview: a coloured diff for edits, the
// text itself (file content, a command) otherwise, tabs expanded to their
// tab stops. Lines are wrapped, never cut: what is approved is seen whole.
func previewLines(preview string, width int) []string {
	preview = strings.TrimRight(preview, "\n")
	if preview == "" {
		return nil
	}
	if looksLikeDiff(preview) {
		return renderDiff(preview, width, 2, -1, true)
	}
	var out []string
	for _, l := range strings.Split(expandTabs(preview), "\n") {
		for i, piece := range hardWrap(l, width-2) {
			if i > 0 {
				piece = dimStyle.Render("↳") + piece
			}
			out = append(out, "  "+piece)
		}
	}
	return out
}
