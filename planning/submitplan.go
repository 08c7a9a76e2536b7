package planning

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/harness9/harness9/tool"
)

type submitPlanInput struct {
	Title   string   `json:"title" jsonschema:"A short title for the task, a few words."`
	Content string   `json:"content" jsonschema:"The plan in markdown: context, approach, files to change, risks."`
	Steps   []string `json:"steps" jsonschema:"The ordered, concrete implementation steps; each becomes a todo item."`
}

// SubmitPlanOption configures NewSubmitPlanTool.
type SubmitPlanOption func(*planSubmitter)

// WithSubmitEvidence resets e when a plan is submitted: the reading done
// while planning is no evidence that any step has been carried out.
func WithSubmitEvidence(e *Evidence) SubmitPlanOption {
	return func(s *planSubmitter) { s.evidence = e }
}

// WithSubmitPlanWriter persists the new todo list (the plan's steps) with w;
// failures are logged, never reported to the model.
func WithSubmitPlanWriter(w PlanWriter) SubmitPlanOption {
	return func(s *planSubmitter) { s.writer = w }
}

type planSubmitter struct {
	store    *TodoStore
	onSubmit func(Plan) error
	evidence *Evidence
	writer   PlanWriter
}

// NewSubmitPlanTool returns the submit_plan tool. A valid call (non-empty
// title, at least one non-empty step) calls onSubmit with the plan (the
// engine's Workflow records it as awaiting approval, or refuses it and the
// model is told why), replaces the todo list with the steps — ids "1".."n",
// all pending — and returns a Result with EndTurn set, so the run loop
// stops without another model call. GateFor keeps it to Plan Mode.
func NewSubmitPlanTool(store *TodoStore, onSubmit func(Plan) error, opts ...SubmitPlanOption) tool.Tool {
	s := &planSubmitter{store: store, onSubmit: onSubmit}
	for _, o := range opts {
		o(s)
	}
	return tool.New(SubmitPlanName, SubmitPlanDescription, s.run, tool.WithKind(tool.KindSwitchMode), tool.WithSummary(submitSummary))
}

// submitSummary is what the user sees of a call: the result's words are
// for the model ("stop here…").
func submitSummary(input json.RawMessage, out tool.Result) string {
	if out.IsError {
		first, _, _ := strings.Cut(out.Output, "\n")
		return first
	}
	in, _ := tool.Decode[submitPlanInput](input)
	return fmt.Sprintf("plan submitted for your review (%d %s)", len(in.Steps), map[bool]string{true: "step", false: "steps"}[len(in.Steps) == 1])
}

func (s *planSubmitter) run(_ context.Context, in submitPlanInput) (tool.Result, error) {
	p := Plan{Title: strings.TrimSpace(in.Title), Content: strings.TrimSpace(in.Content)}
	if p.Title == "" {
		return tool.Errorf("submit_plan refused: the title is empty. Give the plan a short title of a few words and call submit_plan again."), nil
	}
	for i, step := range in.Steps {
		step = strings.TrimSpace(step)
		if step == "" {
			return tool.Errorf("submit_plan refused: step %d is empty. Every step must describe one concrete action; remove it or fill it in and call submit_plan again.", i+1), nil
		}
		p.Steps = append(p.Steps, step)
	}
	if len(p.Steps) == 0 {
		return tool.Errorf("submit_plan refused: the plan has no steps. List the concrete implementation steps in order in \"steps\" and call submit_plan again."), nil
	}
	if s.onSubmit != nil {
		// Before the todo list changes: a plan the workflow refuses
		// leaves everything as it was.
		if err := s.onSubmit(p); err != nil {
			return tool.Errorf("submit_plan refused: %v", err), nil
		}
	}
	todos := s.store.Write(StepsToTodos(p.Steps))
	s.evidence.Reset()
	if s.writer != nil {
		if err := s.writer.Write(todos); err != nil {
			slog.Warn("submit_plan: could not persist the todo list", "err", err)
		}
	}
	return tool.Result{Output: fmt.Sprintf(planSubmittedText, p.Title, len(p.Steps)), EndTurn: true}, nil
}

// StepsToTodos turns plan steps into a todo list: ids "1".."n", all pending.
func StepsToTodos(steps []string) []TodoItem {
	todos := make([]TodoItem, len(steps))
	for i, s := range steps {
		todos[i] = TodoItem{ID: strconv.Itoa(i + 1), Content: s, Status: TodoPending}
	}
	return todos
}

// maxFallbackTitle caps, in runes, a title taken from the model's text.
const maxFallbackTitle = 80

// FallbackPlan builds the plan of a Plan-Mode run that ended with a todo list
// but without calling submit_plan (a model that never learned the tool still
// gets its plan reviewed): the title is
// the first non-empty line of the model's final text with markdown heading
// marks removed, the steps are the contents of the todos that are not
// cancelled, and the content is the text itself.
func FallbackPlan(todos []TodoItem, finalText string) Plan {
	p := Plan{Title: "Plan", Content: strings.TrimSpace(finalText)}
	for line := range strings.Lines(finalText) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		line = strings.TrimSpace(strings.Trim(line, "*_`"))
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > maxFallbackTitle {
			line = strings.TrimSpace(string(r[:maxFallbackTitle-1])) + "…"
		}
		p.Title = line
		break
	}
	for _, it := range todos {
		if it.Status != TodoCancelled && strings.TrimSpace(it.Content) != "" {
			p.Steps = append(p.Steps, it.Content)
		}
	}
	return p
}
