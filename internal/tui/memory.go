package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/internal/memory"
)

// memoryAddedMsg reports a "# note" written (or not).
type memoryAddedMsg struct {
	path, note string
	err        error
}

// addNote handles a line starting with '#': it is not sent to the model;
// the note goes to the project's or the user's AGENTS.md once confirmed
// (the target asked once per project).
func (m *model) addNote(text string) tea.Cmd {
	book := m.opts.Memory
	note := memory.Normalize(text)
	if note == "" {
		m.hint = "type the note after the # (nothing was sent)"
		return nil
	}
	if t, ok := book.Choice(); ok {
		return m.openDialog(&choiceDialog{
			title:   "Add to memory",
			body:    []string{"add to " + book.Path(t) + ":", "- " + note},
			options: []string{"add it", "cancel"},
			choose: func(m *model, i int) tea.Cmd {
				if i != 0 {
					m.note("Not added.")
					return nil
				}
				return writeNote(book, t, note, false)
			},
		})
	}
	return m.openDialog(&choiceDialog{
		title: "Add to memory — where do this project's notes go?",
		body:  []string{"- " + note, "(asked once for this project; the answer is remembered)"},
		options: []string{"this project: " + book.Path(memory.Project),
			"all your projects: " + book.Path(memory.User), "cancel"},
		choose: func(m *model, i int) tea.Cmd {
			switch i {
			case 0:
				return writeNote(book, memory.Project, note, true)
			case 1:
				return writeNote(book, memory.User, note, true)
			}
			m.note("Not added.")
			return nil
		},
	})
}

// writeNote is the command that writes the note (no I/O in Update).
func writeNote(book *memory.Book, t memory.Target, note string, remember bool) tea.Cmd {
	return func() tea.Msg {
		if remember {
			if err := book.Remember(t); err != nil {
				return memoryAddedMsg{err: err}
			}
		}
		path, err := book.Add(t, note)
		return memoryAddedMsg{path: path, note: note, err: err}
	}
}

func (m *model) onMemoryAdded(msg memoryAddedMsg) {
	if msg.err != nil {
		m.errorLine("memory: " + msg.err.Error())
		return
	}
	m.note("added to " + msg.path + ": " + msg.note + " (in the system prompt from the next turn)")
}

func (m *model) cmdMemory(string) tea.Cmd {
	if m.opts.Memory == nil {
		m.hint = "memory is not available here"
		return nil
	}
	files := m.opts.Memory.Files()
	if len(files) == 0 {
		m.note("No memory files: add AGENTS.md to the project, or type # and a note.")
		return nil
	}
	var b strings.Builder
	b.WriteString("Memory (in the system prompt):")
	for _, f := range files {
		b.WriteString("\n  " + f.Path)
		if len(f.Notes) == 0 {
			b.WriteString(" (no \"- \" notes)")
		}
		for _, n := range f.Notes {
			b.WriteString("\n    - " + n)
		}
	}
	m.note(b.String())
	return nil
}
