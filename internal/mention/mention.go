// Package mention attaches the files a prompt names with @path: their
// content is appended to the prompt the model receives, read through the
// workspace like every file harness9 opens for the model (the workdir's
// confinement and deny list hold).
package mention

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/harness9/harness9/llm"
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
	Path    string // as resolved, relative to the workdir; server:uri for a resource
	Lines   int
	Picture bool   // an image, attached as a picture
	Problem string // why it was not attached; "" when it was
}

// Expand appends every file prompt mentions to it. A mention that is not
// a file of the workspace ("@alice", "@v2") is left alone and reported
// only when it looks like a path; a denied, binary or oversized file is
// not attached and reported with the reason.
func Expand(ws *tool.Workspace, prompt string) (string, []Attached) {
	var a Attachments
	a.Mentions(ws, prompt)
	return a.Append(prompt), a.report
}

// Expanded is a prompt with what it mentions attached.
type Expanded struct {
	Text   string
	Images []llm.Image // pictures among the mentioned resources
	Report []Attached
}

// ExpandAll is Expand for files and, when res is set, the MCP resources
// the prompt mentions as @server:uri. A resource is attached like a file
// (the same size limits; binary content refused) and a picture goes
// through the picture package's checks, for a model with vision only.
func ExpandAll(ctx context.Context, ws *tool.Workspace, prompt string, res Resources, vision bool) Expanded {
	var a Attachments
	a.MentionsWith(ctx, ws, prompt, res, vision)
	return Expanded{Text: a.Append(prompt), Images: a.images, Report: a.report}
}

// Attachments collects files for a prompt, within the limits of Expand:
// files a front end names some other way than @path (an editor's
// resource links and embedded resources).
type Attachments struct {
	b      strings.Builder
	total  int
	done   map[string]bool
	report []Attached
	images []llm.Image
}

// Images are the pictures attached (image resources).
func (a *Attachments) Images() []llm.Image { return a.images }

// Mentions attaches the files prompt names with @path, as Expand does.
func (a *Attachments) Mentions(ws *tool.Workspace, prompt string) {
	a.MentionsWith(context.Background(), ws, prompt, nil, false)
}

// MentionsWith attaches the files prompt names with @path and, when res
// is set, the MCP resources it names with @server:uri (see ExpandAll).
func (a *Attachments) MentionsWith(ctx context.Context, ws *tool.Workspace, prompt string, res Resources, vision bool) {
	var servers []string
	if res != nil {
		servers = res.Servers()
	}
	for _, raw := range Paths(prompt) {
		if server, uri, ok := resourceRef(raw, servers); ok {
			a.resource(ctx, res, server, uri, vision)
			continue
		}
		path := raw
		data, truncated, err := ws.ReadFile(path, MaxFileBytes)
		if err != nil {
			// "see @main.go." — the sentence's full stop is not the path's.
			if trimmed := trimPunct(raw); trimmed != raw && trimmed != "" {
				path = trimmed
				data, truncated, err = ws.ReadFile(path, MaxFileBytes)
			}
		}
		if err != nil {
			if strings.ContainsAny(raw, "/.") {
				a.report = append(a.report, Attached{Path: path, Problem: problem(err)})
			}
			continue
		}
		a.add(path, data, truncated)
	}
}

// File attaches the workspace file at path, read through ws (its
// editor's buffer when it has one); a file that cannot be attached is
// reported with the reason.
func (a *Attachments) File(ctx context.Context, ws *tool.Workspace, path string) {
	data, truncated, err := ws.ReadText(ctx, path, MaxFileBytes)
	if err != nil {
		a.report = append(a.report, Attached{Path: path, Problem: problem(err)})
		return
	}
	a.add(path, data, truncated)
}

// Text attaches text the user gave with the prompt under the name path
// (an editor's selection or unsaved buffer): it is the user's own, so no
// file is read.
func (a *Attachments) Text(path, text string) {
	data := []byte(text)
	truncated := len(data) > MaxFileBytes
	if truncated {
		data = data[:MaxFileBytes]
	}
	a.add(path, data, truncated)
}

// Skip reports that path was not attached, and why.
func (a *Attachments) Skip(path, problem string) {
	a.report = append(a.report, Attached{Path: path, Problem: problem})
}

// Append returns prompt followed by the attached files.
func (a *Attachments) Append(prompt string) string { return prompt + a.b.String() }

// Report says what was attached and what not, in order.
func (a *Attachments) Report() []Attached { return a.report }

func (a *Attachments) add(path string, data []byte, truncated bool) {
	a.block("file", fmt.Sprintf("path=%q", path), path, data, truncated)
}

// block attaches data as a <tag attrs> block reported under name, unless
// it is too large, binary or would pass the total.
func (a *Attachments) block(tag, attrs, name string, data []byte, truncated bool) {
	switch {
	case a.done[name]:
		return
	case truncated:
		a.report = append(a.report, Attached{Path: name, Problem: fmt.Sprintf("larger than %d KB", MaxFileBytes>>10)})
		return
	case bytes.IndexByte(data, 0) >= 0:
		a.report = append(a.report, Attached{Path: name, Problem: "a binary file"})
		return
	case a.total+len(data) > MaxTotalBytes:
		a.report = append(a.report, Attached{Path: name, Problem: fmt.Sprintf("the attachments would pass %d KB", MaxTotalBytes>>10)})
		return
	}
	a.total += len(data)
	a.markDone(name)
	if a.b.Len() == 0 {
		a.b.WriteString("\n\nFiles the user attached:")
	}
	// The content sits in a code fence longer than any run of
	// backticks in it: a repository file that writes "</file>" and
	// then text of its own cannot end the attachment early and have
	// that text read as the user's.
	fence := Fence(data)
	fmt.Fprintf(&a.b, "\n<%s %s>\n%s\n%s", tag, attrs, fence, data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		a.b.WriteByte('\n')
	}
	a.b.WriteString(fence + "\n</" + tag + ">")
	a.report = append(a.report, Attached{Path: name, Lines: bytes.Count(data, []byte("\n")) + boolInt(len(data) > 0 && data[len(data)-1] != '\n')})
}

func (a *Attachments) markDone(name string) {
	if a.done == nil {
		a.done = map[string]bool{}
	}
	a.done[name] = true
}

// trimPunct drops a sentence's punctuation from the end of a mention.
func trimPunct(s string) string { return strings.TrimRight(s, ".,;:!?)]}'\"") }

// Fence is a markdown code fence longer than any run of backticks in
// data, so data cannot end the block it is put in.
func Fence(data []byte) string { return strings.Repeat("`", max(3, longestRun(data, '`')+1)) }

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
		switch {
		case a.Problem == "" && a.Picture:
			ok = append(ok, a.Path+" (picture)")
		case a.Problem == "":
			unit := "lines"
			if a.Lines == 1 {
				unit = "line"
			}
			ok = append(ok, fmt.Sprintf("%s (%d %s)", a.Path, a.Lines, unit))
		default:
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
