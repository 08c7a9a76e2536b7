package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harness9/harness9/internal/lib/ignore"
	"github.com/harness9/harness9/tool"
)

//go:embed list_files.md
var listFilesDescription string

const (
	listDefaultDepth = 2
	listMaxDepth     = 10
	listMaxEntries   = 500
)

// ListFilesInput is the input of list_files.
type ListFilesInput struct {
	Path  string `json:"path,omitempty" jsonschema:"directory to list, relative to the workspace root (default: the root)"`
	Depth int    `json:"depth,omitempty" jsonschema:"levels to descend (default 2, max 10); 1 lists only the directory's own entries"`
}

// ListFiles is the list_files tool.
type ListFiles struct {
	tool.Spec
	readOnly
	ws *tool.Workspace
}

// NewListFiles returns the list_files tool.
func NewListFiles(ws *tool.Workspace) *ListFiles {
	return &ListFiles{Spec: tool.NewSpec[ListFilesInput]("list_files", listFilesDescription), ws: ws}
}

// Execute implements tool.Tool.
func (t *ListFiles) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, t.Name(), input, t.list)
}

func (t *ListFiles) list(ctx context.Context, in ListFilesInput) (tool.Result, error) {
	depth := in.Depth
	switch {
	case depth < 0:
		return tool.Errorf("list_files: depth must not be negative"), nil
	case depth == 0:
		depth = listDefaultDepth
	case depth > listMaxDepth:
		depth = listMaxDepth
	}
	dir, err := t.ws.Resolve(in.Path)
	if err != nil {
		return tool.Failed("list_files", err), nil
	}
	fi, err := t.ws.Stat(in.Path)
	if err != nil {
		return tool.Errorf("list_files: %q does not exist; use glob to search for it", in.Path), nil
	}
	if !fi.IsDir() {
		return tool.Errorf("list_files: %q is a file, not a directory; use read_file to read it", in.Path), nil
	}

	// Breadth first, so that a capped listing keeps the shallow entries;
	// printed depth first as a tree.
	w := walker{ws: t.ws}
	parts, rules := w.start(dir)
	type level struct {
		parts []string
		rules *ignore.Rules
		depth int
	}
	children := map[string][]node{}
	queue := []level{{parts, rules, 1}}
	count, capped := 0, false
	for len(queue) > 0 && !capped {
		if err := ctx.Err(); err != nil {
			return tool.Result{}, err
		}
		cur := queue[0]
		queue = queue[1:]
		// Opened from the root each time: the listing is capped, so the
		// cost of resolving the whole path again does not matter here.
		d, err := w.open(nil, cur.parts)
		if err != nil {
			continue // unreadable directory: shown, but empty
		}
		nodes, sub, err := w.list(d, cur.parts, cur.rules)
		_ = d.Close()
		if err != nil {
			continue
		}
		if room := listMaxEntries - count; len(nodes) > room {
			nodes, capped = nodes[:room], true
		}
		count += len(nodes)
		children[relOf(cur.parts)] = nodes
		for _, n := range nodes {
			if n.isDir && !n.link && cur.depth < depth {
				queue = append(queue, level{n.parts, sub, cur.depth + 1})
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%s/\n", t.ws.Rel(dir))
	var printDir func(rel, indent string)
	printDir = func(rel, indent string) {
		for _, n := range children[rel] {
			name := shownName(n.parts[len(n.parts)-1])
			switch {
			case n.link && n.isDir:
				name += "/@"
			case n.link:
				name += "@"
			case n.isDir:
				name += "/"
			}
			b.WriteString(indent + name + "\n")
			if n.isDir && !n.link {
				printDir(n.rel(), indent+"  ")
			}
		}
	}
	printDir(relOf(parts), "  ")
	switch {
	case capped:
		fmt.Fprintf(&b, "\n(listing cut at %d entries; list a subdirectory or use a smaller depth)", listMaxEntries)
	case count == 0:
		b.WriteString("  (empty)")
	}
	return tool.Text(strings.TrimRight(b.String(), "\n")), nil
}
