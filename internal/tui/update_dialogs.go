package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/planning"
)

// openReview shows the review dialog for the plan awaiting approval. It is
// only called when a plan was just submitted, when a session awaiting
// approval is opened, or on /review: a dialog the user closed never comes
// back by itself.
func (m *model) openReview(note string) {
	if m.plan == nil {
		return
	}
	m.review = newReviewDialog(*m.plan, note)
	m.layout()
}

// closeReview closes the dialog and keeps the plan (Esc, Ctrl+C). A note
// the user had typed moves to the editor, so nothing typed is lost.
func (m *model) closeReview(note string) {
	m.review = nil
	if note != "" && m.in.value() == "" {
		m.in.setValue(note)
	}
	m.hint = "the plan is still waiting for approval — /review reopens it"
	m.layout()
}

func (m *model) reviewKey(k tea.KeyPressMsg) tea.Cmd {
	act, cmd := m.review.update(k)
	if act.choice == reviewNone {
		m.layout()
		return cmd
	}
	if act.choice == reviewClose {
		m.closeReview(act.feedback)
		return nil
	}
	m.review = nil
	m.layout()
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

func (m *model) permissionKey(k tea.KeyPressMsg) tea.Cmd {
	ans, cmd := m.perm.update(k)
	if ans == nil {
		m.layout()
		return cmd
	}
	m.perm.req.Respond(ans.decision, ans.reason)
	name, rules := m.perm.req.Call.Name, m.perm.req.Rules
	m.perm = nil
	if len(m.permQueue) > 0 {
		m.perm, m.permQueue = newPermissionDialog(m.permQueue[0]), m.permQueue[1:]
	}
	m.layout()
	switch ans.decision {
	case agent.AllowSession:
		m.note("allowed " + name + " for this session")
	case agent.AllowProject:
		m.note("always allowed in this project: " + strings.Join(rules, ", "))
	case agent.Deny:
		m.note("denied " + name + ": " + ans.reason)
	}
	return nil
}

func (m *model) pickerKey(k tea.KeyPressMsg) tea.Cmd {
	id, cancelled := m.picker.update(k)
	switch {
	case cancelled:
		m.picker = nil
	case id != "":
		m.picker = nil
		m.layout()
		return m.onPick(id)
	}
	m.layout()
	return nil
}
