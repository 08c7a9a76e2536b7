package agent

import (
	"errors"

	"github.com/harness9/harness9/tool"
)

// Tool returns the tool the engine offers under name (the user's tools and
// the engine's own: todo_write, submit_plan, task), so a front end can
// learn what a call's tool says about itself (tool.Kinded,
// tool.ChangePreviewer, tool.Scoped ...) from an event that names it.
func (e *Engine) Tool(name string) (tool.Tool, bool) { return e.registry.Lookup(name) }

// ErrPromptBlocked is matched (errors.Is) by the error of a run whose
// prompt a user_prompt_submit hook refused: nothing was sent to the model.
var ErrPromptBlocked = errors.New("the prompt was not sent")
