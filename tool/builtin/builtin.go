// Package builtin holds harness9's built-in tools: read_file, write_file,
// edit_file, list_files, glob, search_files and bash. Every file tool
// resolves paths through one tool.Workspace, so reads and writes alike stay
// inside the working directory and out of the home deny list; bash runs with
// the workspace root as its working directory.
//
// Each tool's input is a typed struct whose `json` and `jsonschema` tags
// generate its schema, and its long description is the Markdown file of the
// same name embedded next to it.
package builtin

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/harness9/harness9/tool"
)

// All returns every built-in tool, sharing ws.
func All(ws *tool.Workspace, bashOpts ...BashOption) []tool.Tool {
	return []tool.Tool{
		NewReadFile(ws),
		NewWriteFile(ws),
		NewEditFile(ws),
		NewListFiles(ws),
		NewGlob(ws),
		NewSearchFiles(ws),
		NewBash(ws, bashOpts...),
	}
}

// readOnly is embedded by tools that change nothing.
type readOnly struct{}

// ReadOnly implements tool.ReadOnly.
func (readOnly) ReadOnly() bool { return true }

// binarySniffLen is how much of a file is checked for a NUL byte, the same
// heuristic git and grep use to call a file binary.
const binarySniffLen = 8 << 10

func looksBinary(head []byte) bool {
	if len(head) > binarySniffLen {
		head = head[:binarySniffLen]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// capLine shortens b to at most max bytes without splitting a UTF-8
// sequence, marking the cut.
func capLine(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	out := make([]byte, 0, cut+4)
	out = append(out, b[:cut]...)
	return append(out, " …"...)
}

// plural returns "1 line" or "3 lines".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
