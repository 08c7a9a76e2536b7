package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/planning"
)

// openReview shows the review dialog for the plan awaiting approval. It is
// only called when a plan was just submitted, when a session awaiting
// approval is opened, or on /review: a dialog the user closed never comes
// back by itself.
func (m *model) openReview(note string) tea.Cmd {
	if m.plan == nil {
		return nil
	}
	if d, ok := findDialog[*reviewDialog](m); ok {
		m.removeDialog(d)
	}
	return m.openDialog(newReviewDialog(*m.plan, note))
}

// closeReview runs when the dialog closed and kept the plan (Esc, Ctrl+C).
// A note the user had typed moves to the editor, so nothing typed is lost.
func (m *model) closeReview(note string) {
	m.in.restore(note)
	m.hint = "the plan is still waiting for approval — /review reopens it"
	m.layout()
}

// reviewed carries out the review dialog's answer.
func (m *model) reviewed(act reviewAction) tea.Cmd {
	if act.choice == reviewClose {
		m.closeReview(act.feedback)
		return nil
	}
	start, err := m.eng.Review(planning.ReviewChoice(act.choice), act.feedback)
	if err != nil {
		m.errorLine("could not " + planning.ReviewChoice(act.choice).String() + " the plan: " + err.Error())
		return nil
	}
	switch act.choice {
	case reviewApproveAuto, reviewApproveEdit:
		if act.choice == reviewApproveEdit {
			m.note("Plan approved — executing; each edit asks for confirmation.")
		} else {
			m.note("Plan approved — executing automatically.")
		}
		m.plan = nil
	case reviewRefine:
		m.setModeLocal(planning.ModePlan)
		if start != nil {
			m.tr.add(&block{kind: blockUser, text: act.feedback})
			m.tr.toEnd()
		} else {
			m.note("Still in Plan Mode — type what should change; the agent will revise the plan.")
		}
	case reviewCancel:
		m.plan = nil
		m.note("Plan cancelled.")
		m.todos = m.eng.Todos()
	}
	if start != nil {
		return m.startStream(start)
	}
	return nil
}

// askPermission shows a permission question, or queues it behind the open
// one: sub-agents running in parallel can ask at once, and none may be
// dropped (its tool would wait for an answer that never comes).
func (m *model) askPermission(req *agent.ApprovalRequest) tea.Cmd {
	if _, open := findDialog[*permissionDialog](m); open {
		m.permQueue = append(m.permQueue, req)
		return nil
	}
	return m.openDialog(newPermissionDialog(req))
}

// answered passes the user's answer to the engine and opens the next
// question, if one waits.
func (m *model) answered(d *permissionDialog, ans permissionAnswer) tea.Cmd {
	d.req.Respond(ans.decision, ans.reason)
	name, rules := termtext.Clean(d.req.Call.Name), d.req.Rules
	switch ans.decision {
	case agent.AllowSession:
		m.note("allowed " + name + " for this session")
	case agent.AllowProject:
		m.note("always allowed in this project: " + strings.Join(rules, ", "))
	case agent.Deny:
		if ans.reason != "" {
			m.note("denied " + name + ": " + ans.reason)
		} else {
			m.note("denied " + name)
		}
	}
	if len(m.permQueue) == 0 {
		return nil
	}
	next := m.permQueue[0]
	m.permQueue = m.permQueue[1:]
	return m.openDialog(newPermissionDialog(next))
}

// denyPermissions answers every open and queued question with a denial
// (the turn is cancelled or over) and closes them.
func (m *model) denyPermissions(reason string) {
	for {
		d, ok := findDialog[*permissionDialog](m)
		if !ok {
			break
		}
		d.req.Respond(agent.Deny, reason)
		m.removeDialog(d)
	}
	for _, req := range m.permQueue {
		req.Respond(agent.Deny, reason)
	}
	m.permQueue = nil
}

// openPicker shows a list picker; pick carries out the choice.
func (m *model) openPicker(c chooser, pick func(m *model, choice string) tea.Cmd) tea.Cmd {
	return m.openDialog(&pickerDialog{c: c, pick: pick})
}
