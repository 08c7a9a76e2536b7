// Package mention attaches the files a prompt names with @path: their
// content is appended to the prompt the model receives, read through the
// workspace like every file harness9 opens for the model (the workdir's
// confinement and deny list hold).
package mention

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/harness9/harness9/tool"
)

// Limits on what is attached.
const (
	MaxFileBytes  = 256 << 10
	MaxTotalBytes = 1 << 20
)

// mentionRE finds @path words: "@" at the start or after a space, then a
// path without spaces.
var mentionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)@([^\s@]+)`) })

// Paths returns the @paths of prompt in order, without duplicates, as
// typed (trailing sentence punctuation not removed; see Expand).
func Paths(prompt string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range mentionRE().FindAllStringSubmatch(prompt, -1) {
		if p := m[1]; !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Attached is one file Expand attached or could not.
type Attached struct {
	Path    string // as resolved, relative to the workdir
	Lines   int
	Problem string // why it was not attached; "" when it was
}

// Expand appends every file prompt mentions to it. A mention that is not
// a file of the workspace ("@alice", "@v2") is left alone and reported
// only when it looks like a path; a denied, binary or oversized file is
// not attached and reported with the reason.
func Expand(ws *tool.Workspace, prompt string) (string, []Attached) {
	var b strings.Builder
	var report []Attached
	total := 0
	done := map[string]bool{}
	for _, raw := range Paths(prompt) {
		path := raw
		data, truncated, err := ws.ReadFile(path, MaxFileBytes)
		if err != nil {
			// "see @main.go." — the sentence's full stop is not the path's.
			if trimmed := strings.TrimRight(raw, ".,;:!?)]}'\""); trimmed != raw && trimmed != "" {
				path = trimmed
				data, truncated, err = ws.ReadFile(path, MaxFileBytes)
			}
		}
		switch {
		case err == nil && done[path]:
			continue
		case err != nil:
			if strings.ContainsAny(raw, "/.") {
				report = append(report, Attached{Path: path, Problem: problem(err)})
			}
			continue
		case truncated:
			report = append(report, Attached{Path: path, Problem: fmt.Sprintf("larger than %d KB", MaxFileBytes>>10)})
			continue
		case bytes.IndexByte(data, 0) >= 0:
			report = append(report, Attached{Path: path, Problem: "a binary file"})
			continue
		case total+len(data) > MaxTotalBytes:
			report = append(report, Attached{Path: path, Problem: fmt.Sprintf("the attachments would pass %d KB", MaxTotalBytes>>10)})
			continue
		}
		total += len(data)
		done[path] = true
		if b.Len() == 0 {
			b.WriteString("\n\nFiles the user attached:")
		}
		// The content sits in a code fence longer than any run of
		// backticks in it: a repository file that writes "</file>" and
		// then text of its own cannot end the attachment early and have
		// that text read as the user's.
		fence := strings.Repeat("`", max(3, longestRun(data, '`')+1))
		fmt.Fprintf(&b, "\n<file path=%q>\n%s\n%s", path, fence, data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
		b.WriteString(fence + "\n</file>")
		report = append(report, Attached{Path: path, Lines: bytes.Count(data, []byte("\n")) + boolInt(len(data) > 0 && data[len(data)-1] != '\n')})
	}
	return prompt + b.String(), report
}

// longestRun is the length of the longest run of c in data.
func longestRun(data []byte, c byte) int {
	longest, run := 0, 0
	for _, d := range data {
		if d == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// problem words a read failure briefly.
func problem(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && len(s)-i < 80 {
		return s[i+2:]
	}
	return s
}

// Summary is one line for the person: what was attached and what not.
func Summary(report []Attached) string {
	var ok, bad []string
	for _, a := range report {
		if a.Problem == "" {
			ok = append(ok, fmt.Sprintf("%s (%d lines)", a.Path, a.Lines))
		} else {
			bad = append(bad, a.Path+": "+a.Problem)
		}
	}
	var parts []string
	if len(ok) > 0 {
		parts = append(parts, "attached "+strings.Join(ok, ", "))
	}
	if len(bad) > 0 {
		parts = append(parts, "not attached: "+strings.Join(bad, "; "))
	}
	return strings.Join(parts, " · ")
}
