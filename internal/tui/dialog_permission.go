package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/harness9/harness9/agent"
)

const maxPreviewLines = 16

var permissionOptions = []string{"Allow once", "Allow for this session", "Deny (tell the agent why)"}

// permissionDialog asks whether one write_file, edit_file or bash call may
// run (AutoEdit mode, or "approve and confirm each edit").
type permissionDialog struct {
	req    *agent.ApprovalRequest
	cursor int
	// typing is true while the user writes the reason for a denial.
	typing bool
	reason textinput.Model
}

// permissionAnswer is a finished dialog's answer.
type permissionAnswer struct {
	decision agent.Decision
	reason   string
}

func newPermissionDialog(req *agent.ApprovalRequest) *permissionDialog {
	ti := textinput.New()
	ti.Placeholder = "why not? (Enter sends, empty is fine)"
	ti.Prompt = "reason: "
	return &permissionDialog{req: req, reason: ti}
}

// update handles a key and returns the answer once the user has decided.
func (d *permissionDialog) update(k tea.KeyPressMsg) (*permissionAnswer, tea.Cmd) {
	if d.typing {
		switch k.String() {
		case "enter":
			r := strings.TrimSpace(d.reason.Value())
			if r == "" {
				r = "the user denied this call"
			}
			return &permissionAnswer{agent.Deny, r}, nil
		case "esc":
			d.typing = false
			d.reason.Blur()
			return nil, nil
		}
		var cmd tea.Cmd
		d.reason, cmd = d.reason.Update(k)
		return nil, cmd
	}
	switch k.String() {
	case "1", "y":
		return &permissionAnswer{decision: agent.AllowOnce}, nil
	case "2", "a":
		return &permissionAnswer{decision: agent.AllowSession}, nil
	case "3", "n":
		return d.startReason()
	case "up", "k":
		d.cursor = (d.cursor + len(permissionOptions) - 1) % len(permissionOptions)
	case "down", "j", "tab":
		d.cursor = (d.cursor + 1) % len(permissionOptions)
	case "enter":
		switch d.cursor {
		case 0:
			return &permissionAnswer{decision: agent.AllowOnce}, nil
		case 1:
			return &permissionAnswer{decision: agent.AllowSession}, nil
		}
		return d.startReason()
	case "esc":
		return &permissionAnswer{agent.Deny, "the user denied this call"}, nil
	}
	return nil, nil
}

func (d *permissionDialog) startReason() (*permissionAnswer, tea.Cmd) {
	d.typing = true
	d.cursor = 2
	return nil, d.reason.Focus()
}

// paste forwards pasted text to the reason field.
func (d *permissionDialog) paste(msg tea.PasteMsg) {
	if d.typing {
		d.reason, _ = d.reason.Update(msg)
	}
}

func (d *permissionDialog) view(width int, th theme) string {
	inner := min(width-4, 96)
	call := d.req.Call
	var b strings.Builder
	b.WriteString(th.accent.Bold(true).Render("Allow "+call.Name+"?") + "  ")
	b.WriteString(ansi.Truncate(callSubject(call.Name, call.Input), max(inner-len(call.Name)-9, 8), "…") + "\n\n")
	preview := strings.TrimRight(d.req.Preview, "\n")
	if preview != "" {
		var lines []string
		if looksLikeDiff(preview) {
			lines = renderDiff(preview, inner+5)
		} else {
			for _, l := range strings.Split(preview, "\n") {
				lines = append(lines, "  "+ansi.Truncate(strings.ReplaceAll(l, "\t", "    "), inner-2, "…"))
			}
		}
		if len(lines) > maxPreviewLines {
			n := len(lines) - maxPreviewLines
			lines = append(lines[:maxPreviewLines], dimStyle.Render(fmt.Sprintf("  … %d more lines", n)))
		}
		for _, l := range lines {
			b.WriteString(strings.TrimPrefix(l, "   ") + "\n")
		}
		b.WriteString("\n")
	}
	for i, o := range permissionOptions {
		line := fmt.Sprintf("[%d] %s", i+1, o)
		if i == d.cursor {
			b.WriteString(th.accent.Bold(true).Render("› "+line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	if d.typing {
		b.WriteString("\n" + d.reason.View())
	} else {
		b.WriteString("\n" + dimStyle.Render("1/y once · 2/a session · 3/n deny · Esc denies"))
	}
	return dialogBox(b.String(), inner, th)
}

// callSubject is the path of a file tool or the command of bash.
func callSubject(name string, input json.RawMessage) string {
	var args struct {
		Path    string `json:"path"`
		Command string `json:"command"`
	}
	_ = json.Unmarshal(input, &args)
	if name == "bash" && args.Command != "" {
		return "$ " + strings.ReplaceAll(args.Command, "\n", " ")
	}
	if args.Path != "" {
		return args.Path
	}
	return keyArg(name, input)
}
