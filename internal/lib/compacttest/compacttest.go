// Package compacttest is issue 33's session, for tests that run it on the
// local and on the durable engine: an 8,000-token window whose fixed part
// (system prompt and the built-in tools) is about half of it, and a
// scripted model that writes two todos and then reads twenty files of
// about 1,500 tokens each. Before the compaction rule of compact.Plan the
// local engine asked for a summary on nearly every turn.
package compacttest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/planning"
)

const (
	// Window is the context window of the session, in tokens.
	Window = 8000
	// Reads is the number of files the model reads.
	Reads = 20
	// Prompt is the user's prompt.
	Prompt = "port every handler"
	// ActiveTasks is how every summary must end: the todos the model
	// wrote first, neither of them done.
	ActiveTasks = "## Active Tasks\n[>] port the handlers\n[ ] add the tests"
	// LastText is the model's last answer.
	LastText = "All handlers read."
)

// FileName is the name of the n-th file read.
func FileName(n int) string { return fmt.Sprintf("server%02d.go", n) }

// source is a file of about 1,500 tokens that differs per n.
func source(n int) string {
	var b strings.Builder
	for line := range 40 {
		fmt.Fprintf(&b, "func (s *server%d) handle%d(w http.ResponseWriter, r *http.Request) error { return s.serve(w, r, %d) }\n", n, line, line*n)
	}
	return b.String()
}

// WriteFiles writes the files the model reads into dir.
func WriteFiles(dir string) error {
	for n := range Reads {
		if err := os.WriteFile(filepath.Join(dir, FileName(n)), []byte(source(n)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// System is a system prompt that brings the fixed part of a request (with
// the built-in tools' definitions) to about 4,000 tokens, like the CLI's
// system prompt, skills index and tools.
func System() string {
	var b strings.Builder
	b.WriteString(agent.DefaultSystemPrompt)
	for i := range 60 {
		fmt.Fprintf(&b, "\nRule %d: keep changes small, run the tests after each edit, and explain what changed.", i+1)
	}
	return b.String()
}

// Turns are the model's answers, in order: the todos, the reads, the end.
func Turns() []scripted.Turn {
	todo := func(id, content string, st planning.TodoStatus) planning.TodoItem {
		return planning.TodoItem{ID: id, Content: content, Status: st}
	}
	turns := []scripted.Turn{{Calls: scripted.Calls(scripted.Call(planning.TodoWriteName, map[string]any{"todos": []planning.TodoItem{
		todo("1", "port the handlers", planning.TodoInProgress),
		todo("2", "add the tests", planning.TodoPending)}}))}}
	for n := range Reads {
		turns = append(turns, scripted.Turn{Text: "Reading " + FileName(n) + ".",
			Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": FileName(n)}))})
	}
	return append(turns, scripted.Turn{Text: LastText})
}

// Summariser answers summary requests, more of them than the session can
// ask for.
func Summariser() *scripted.Provider {
	p := scripted.New()
	for i := range Reads {
		p.Add(scripted.Turn{Text: fmt.Sprintf("**Goal**\nPort the HTTP handlers.\n\n**Progress**\nRead the server files (summary %d).\n\n"+
			"**Next Steps**\nKeep reading, then port.\n\n**Key files and decisions**\n- handlers are in server*.go", i+1)})
	}
	return p
}
