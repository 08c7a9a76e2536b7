package hook

import (
	"encoding/json"
	"strings"
)

// decision is the part of a hook's JSON output harness9 acts on, in Claude
// Code's field names, so hooks written for it work here:
//
//	{"decision": "block", "reason": "…"}
//	{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "…"}}
type decision struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Specific struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
	} `json:"hookSpecificOutput"`
}

// Decision reads the stdout of a hook that exited 0: block is true when it
// is a JSON object saying "decision": "block" or a "permissionDecision" of
// "deny", and reason is the reason it gave. Anything else — plain text, an
// "approve" or "allow" — decides nothing: a hook adds checks, it never lets
// a call past the mode, the permission rules or the sandbox.
func Decision(stdout string) (reason string, block bool) {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return "", false
	}
	var d decision
	if json.Unmarshal([]byte(s), &d) != nil {
		return "", false
	}
	switch {
	case strings.EqualFold(d.Decision, "block"):
		return strings.TrimSpace(d.Reason), true
	case strings.EqualFold(d.Specific.PermissionDecision, "deny"):
		return strings.TrimSpace(d.Specific.PermissionDecisionReason), true
	}
	return "", false
}
