package builtin

import (
	"encoding/json"
	"strings"

	"github.com/harness9/harness9/tool"
)

// Preview implements tool.Previewer: the command line, as the user
// approves it.
func (b *Bash) Preview(input json.RawMessage) string {
	in, _ := tool.Decode[BashInput](input)
	return "$ " + in.Command
}

// Scope implements tool.Scoped: permission rules like bash(git diff:*)
// match the command line.
func (b *Bash) Scope(input json.RawMessage) tool.Scope {
	in, _ := tool.Decode[BashInput](input)
	return tool.Scope{Command: in.Command}
}

// Summary implements tool.Summarizer: how the command ended (the result's
// last line, "exit code: N" or why it was killed), then the output's first
// line.
func (b *Bash) Summary(_ json.RawMessage, res tool.Result) string {
	out := strings.TrimRight(res.Output, "\n")
	i := strings.LastIndexByte(out, '\n')
	if i < 0 {
		return firstAndCount(out)
	}
	body, status := strings.TrimSpace(out[:i]), out[i+1:]
	if body == "" || body == "(no output)" {
		return status + " · no output"
	}
	return status + " · " + firstAndCount(body)
}

// ChangedFiles implements tool.FileChanger: a command may change any file
// of the workdir.
func (b *Bash) ChangedFiles(json.RawMessage) ([]string, bool) { return nil, true }
