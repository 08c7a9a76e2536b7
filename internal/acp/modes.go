package acp

import (
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/harness9/harness9/planning"
)

// modes are planning's modes as the client shows them. What each mode
// means is planning's (its mode table); these are their names.
var modes = []struct {
	id          sdk.SessionModeId
	mode        planning.Mode
	name, about string
}{
	{"default", planning.ModeDefault, "Default",
		"Edits files in the workdir and runs commands in the kernel sandbox; asks before anything the sandbox cannot contain."},
	{"plan", planning.ModePlan, "Plan",
		"Explores read-only (no write tools; commands in a read-only kernel sandbox) and ends with a plan for you to review."},
	{"auto-edit", planning.ModeAutoEdit, "Auto-edit",
		"Asks before every call that may change something, showing each edit as a diff."},
}

func modeByID(id sdk.SessionModeId) (planning.Mode, bool) {
	for _, m := range modes {
		if m.id == id {
			return m.mode, true
		}
	}
	return 0, false
}

func modeID(m planning.Mode) sdk.SessionModeId {
	for _, x := range modes {
		if x.mode == m {
			return x.id
		}
	}
	return modes[0].id
}

func modeIDs() string {
	ids := make([]string, len(modes))
	for i, m := range modes {
		ids[i] = string(m.id)
	}
	return strings.Join(ids, ", ")
}

// modeState is the session's modes for a session/new or session/load
// response.
func (ss *sess) modeState() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: modeID(ss.eng.Mode())}
	for _, m := range modes {
		about := m.about
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: m.id, Name: m.name, Description: &about})
	}
	ss.mu.Lock()
	ss.mode = ss.eng.Mode()
	ss.mu.Unlock()
	return st
}

// syncMode tells the client when the session's mode changed on the
// agent's side (an approved plan executes in Default or Auto-edit;
// keeping a plan returns to Plan).
func (ss *sess) syncMode() { ss.syncModeTo(ss.eng.Mode()) }
