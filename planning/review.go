package planning

import "fmt"

// ReviewChoice is what the user decided about a plan awaiting approval:
// ReviewApprove, ReviewApproveConfirm, ReviewRefine or ReviewCancel. The
// TUI's review dialog and the CLI's prompt offer the same four, numbered
// alike, and hand them to one engine call (agent.Engine.Review).
type ReviewChoice int

// ReviewApprove [1]: approve; edits run at once (ModeDefault).
const ReviewApprove ReviewChoice = 1

// ReviewApproveConfirm [2]: approve; each edit waits for the user
// (ModeAutoEdit).
const ReviewApproveConfirm ReviewChoice = 2

// ReviewRefine [3]: keep the plan and revise it in Plan mode.
const ReviewRefine ReviewChoice = 3

// ReviewCancel [4]: drop the plan and its todo list.
const ReviewCancel ReviewChoice = 4

// ParseReviewChoice reads a choice by its number, "1" to "4".
func ParseReviewChoice(s string) (ReviewChoice, error) {
	if len(s) == 1 && s[0] >= '1' && s[0] <= '4' {
		return ReviewChoice(s[0] - '0'), nil
	}
	return 0, fmt.Errorf("planning: unknown review choice %q (want 1 to 4)", s)
}

// ApprovalMode returns the mode an approving choice executes the plan in;
// ok is false for a choice that does not approve.
func (c ReviewChoice) ApprovalMode() (mode Mode, ok bool) {
	switch c {
	case ReviewApprove:
		return ModeDefault, true
	case ReviewApproveConfirm:
		return ModeAutoEdit, true
	}
	return ModePlan, false
}

// String returns the choice's name.
func (c ReviewChoice) String() string {
	switch c {
	case ReviewApprove:
		return "approve"
	case ReviewApproveConfirm:
		return "approve_confirm"
	case ReviewRefine:
		return "refine"
	case ReviewCancel:
		return "cancel"
	}
	return fmt.Sprintf("review(%d)", int(c))
}
