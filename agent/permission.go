package agent

import (
	"github.com/harness9/harness9/permission"
)

// WithPermissions sets the allow/ask/deny rules every tool call is decided
// by, before the mode's default (package permission; DESIGN §7.2). Without
// it only the mode's default applies. "Always allow" answers add rules to
// rs.
func WithPermissions(rs *permission.Rules) Option {
	return func(c *config) { c.permissions = rs }
}

// WithPermissionStore keeps "always allow for this project" answers: save
// is called with the rules the answer adds (they are already in effect for
// this engine). A failure is logged; the call still runs. Without it the
// AllowProject answer lasts as long as the engine.
func WithPermissionStore(save func(rules []string) error) Option {
	return func(c *config) { c.savePermission = save }
}

// PermissionDecision says how a call's permission was settled.
type PermissionDecision string

// The decisions a Permission event reports.
const (
	PermissionAllowed PermissionDecision = "allowed" // by a rule or an earlier answer
	PermissionAsked   PermissionDecision = "asked"   // put to the user (an ApprovalRequest follows)
	PermissionDenied  PermissionDecision = "denied"  // by a rule, by the user, or with nobody to ask
)

// Permission reports a call that was not plainly allowed by its mode:
// allowed by a rule or an earlier answer, put to the user, or refused.
// Rule names the rule(s) that decided ("" for the mode's default or the
// user's answer).
type Permission struct {
	ID       string
	Name     string
	Decision PermissionDecision
	Rule     string
}

// Type implements Event.
func (Permission) Type() string { return "permission" }
