package demo

import (
	"context"
	"iter"
	"strings"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

// player is the demo's model. It reads where the session stands from each
// request, like scripted.HistoryProvider, but it knows the demo's branches,
// so every choice in the review dialog gets a truthful answer:
//   - the demo task in Plan Mode: explore, read NOTES.md, submit the plan;
//   - feedback after "keep refining": the plan is submitted again with the
//     feedback recorded (the demo says it cannot really rethink);
//   - an approved plan: the execution turns, one step at a time;
//   - anything else (a prompt typed after the demo ended): a plain answer
//     saying this is a scripted demo, never a script error.
type player struct {
	pace  time.Duration // wait before each streamed chunk
	pause time.Duration // wait before each turn (a "thinking" beat per step)
	chunk int           // runes per chunk
}

// Name returns "scripted": the demo plays a script, whatever it looks like.
func (p *player) Name() string { return "scripted" }

// Stream plays the turn that fits req.
func (p *player) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	t := turnFor(req)
	t.Delay, t.ChunkSize = p.pace, p.chunk
	return func(yield func(llm.Chunk, error) bool) {
		if p.pause > 0 {
			select {
			case <-time.After(p.pause):
			case <-ctx.Done():
				yield(llm.Chunk{}, ctx.Err())
				return
			}
		}
		for c, err := range scripted.New(t).Stream(ctx, req) {
			if !yield(c, err) {
				return
			}
		}
	}
}

// Script turns by role: Turns()[:planTurns] plan, the rest execute.
const planTurns = 3

// turnFor decides the demo's next turn from the request's history.
func turnFor(req llm.Request) scripted.Turn {
	turns := Turns()
	lastUser, lastPlan, execStart := -1, -1, -1
	for i, m := range req.Messages {
		switch {
		case m.Role == llm.RoleUser:
			lastUser = i
			if strings.HasPrefix(m.Content, planning.ExecPrompt) {
				execStart = i
			}
		case m.Role == llm.RoleAssistant && hasCall(m, planning.SubmitPlanName):
			lastPlan = i
		}
	}
	if lastUser < 0 {
		return other("")
	}
	prompt := req.Messages[lastUser].Content
	since := assistantsAfter(req.Messages, lastUser)
	planMode := !offers(req, "write_file")
	switch {
	case execStart >= 0 && execStart > lastPlan && !planMode:
		if n := planTurns + assistantsAfter(req.Messages, execStart); n < len(turns) {
			return turns[n]
		}
	case planMode && strings.Contains(prompt, Prompt) && since < planTurns:
		return turns[since]
	case planMode && lastPlan >= 0 && execStart < lastPlan && since == 0:
		return refine(strings.TrimSpace(strings.TrimPrefix(prompt, planning.PlanModePrefix)))
	}
	return other(strings.TrimPrefix(prompt, planning.PlanModePrefix))
}

// refine answers "keep refining" feedback: the scripted model cannot
// rethink the plan, so it says so and submits the same plan with the
// feedback written into it, back to the review dialog.
func refine(feedback string) scripted.Turn {
	content := planContent + "\n\n## Feedback from the review\n> " + strings.ReplaceAll(feedback, "\n", "\n> ") +
		"\n\n(The scripted demo records your note but cannot rework the plan; a real model would.)"
	return scripted.Turn{
		Name: "refine",
		Text: "Thanks — you asked: “" + feedback + "”. I'm a scripted demo with no model behind me, so I can't really " +
			"rework the plan. I've added your note to it and submitted it again.",
		Calls: scripted.Calls(scripted.Call(planning.SubmitPlanName, map[string]any{
			"title": "Greeter in Go", "content": content, "steps": Steps})),
	}
}

// other answers anything outside the script, plainly.
func other(prompt string) scripted.Turn {
	text := "This is harness9's scripted demo: there is no model behind it, so it cannot answer"
	if p := strings.TrimSpace(prompt); p != "" {
		if len([]rune(p)) > 80 {
			p = string([]rune(p)[:80]) + "…"
		}
		text += " “" + p + "”"
	}
	text += ".\n\nThe demo's files stay in its workdir (shown in the banner). To work with a real model, set " +
		"`OPENAI_API_KEY` or `ANTHROPIC_API_KEY` and start `harness9` in your project."
	return scripted.Turn{Name: "outside the script", Text: text}
}

func hasCall(m llm.Message, name string) bool {
	for _, c := range m.ToolCalls {
		if c.Name == name {
			return true
		}
	}
	return false
}

func assistantsAfter(msgs []llm.Message, i int) int {
	n := 0
	for _, m := range msgs[i+1:] {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	return n
}

// offers reports whether the request lets the model call tool name (Plan
// Mode does not offer write_file).
func offers(req llm.Request, name string) bool {
	for _, t := range req.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}
