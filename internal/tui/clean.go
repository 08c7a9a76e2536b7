package tui

import (
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/planning"
)

// forDisplay is a copy of b whose text is safe to draw: the model's words,
// its tool calls' arguments and tools' output can hold control sequences
// that Bubble Tea passes to the terminal (DCS, APC: a tmux-wrapped OSC 52
// clipboard write, a status request the terminal answers by typing) or
// that move the renderer's cursor (a carriage return lets later text cover
// earlier text). They are shown, never obeyed (termtext).
func (b *block) forDisplay() *block {
	c := *b
	c.text = termtext.Clean(b.text)
	c.name = termtext.Clean(b.name)
	c.arg = termtext.Clean(b.arg)
	c.summary = termtext.Clean(b.summary)
	c.result = termtext.Output(b.result)
	c.live = termtext.Output(b.live)
	if b.todos != nil {
		c.todos = cleanTodos(b.todos)
	}
	if b.plan != nil {
		p := cleanPlan(*b.plan)
		c.plan = &p
	}
	return &c
}

func cleanTodos(items []planning.TodoItem) []planning.TodoItem {
	out := make([]planning.TodoItem, len(items))
	for i, it := range items {
		it.Content = termtext.Clean(it.Content)
		out[i] = it
	}
	return out
}

// cleanPlan is p with its model-written text safe to draw.
func cleanPlan(p planning.Plan) planning.Plan {
	p.Title = termtext.Clean(p.Title)
	p.Content = termtext.Clean(p.Content)
	steps := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		steps[i] = termtext.Clean(s)
	}
	p.Steps = steps
	return p
}
