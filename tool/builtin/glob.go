package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/harness9/harness9/internal/lib/ignore"
	"github.com/harness9/harness9/tool"
)

//go:embed glob.md
var globDescription string

const globMaxResults = 200

// GlobInput is the input of glob.
type GlobInput struct {
	Pattern string `json:"pattern" jsonschema:"glob pattern such as **/*.go or src/**/*.{ts,tsx}; ** crosses directories"`
	Path    string `json:"path,omitempty" jsonschema:"directory to search in, relative to the workspace root (default: the root)"`
}

// Glob is the glob tool.
type Glob struct {
	tool.Spec
	readOnly
	ws *tool.Workspace
}

// NewGlob returns the glob tool.
func NewGlob(ws *tool.Workspace) *Glob {
	return &Glob{Spec: tool.NewSpec[GlobInput]("glob", globDescription), ws: ws}
}

// Execute implements tool.Tool.
func (t *Glob) Execute(ctx context.Context, input json.RawMessage) (tool.Result, error) {
	return tool.Run(ctx, t.Name(), input, t.glob)
}

type globHit struct {
	rel   string
	mtime time.Time
}

func (t *Glob) glob(ctx context.Context, in GlobInput) (tool.Result, error) {
	pattern := filepath.ToSlash(in.Pattern)
	if pattern == "" {
		return tool.Errorf("glob: pattern is required"), nil
	}
	if !doublestar.ValidatePattern(pattern) {
		return tool.Errorf("glob: pattern %q is not a valid glob (check brackets and braces)", in.Pattern), nil
	}
	// Start the walk at the pattern's fixed prefix: "src/**/*.go" only
	// needs src/.
	base, rest := doublestar.SplitPattern(pattern)
	if filepath.IsAbs(base) {
		if in.Path != "" {
			return tool.Errorf("glob: give either an absolute pattern or a path, not both"), nil
		}
	} else {
		base = filepath.Join(in.Path, base)
	}
	dir, err := t.ws.Resolve(base)
	if err != nil {
		return tool.Failed("glob", err), nil
	}
	if fi, err := t.ws.Stat(dir); err != nil || !fi.IsDir() {
		return tool.Text(fmt.Sprintf("no files match %q", in.Pattern)), nil
	}
	// Without "**" a pattern cannot match deeper than its segment count.
	maxDepth := -1
	if !strings.Contains(rest, "**") {
		maxDepth = strings.Count(rest, "/") + 1
	}

	w := walker{ws: t.ws}
	parts, rules := w.start(dir)
	var hits []globHit
	var walk func(parent *os.File, parts []string, rules *ignore.Rules, prefix string, depth int) error
	walk = func(parent *os.File, parts []string, rules *ignore.Rules, prefix string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := w.open(parent, parts)
		if err != nil {
			return nil // unreadable directory: nothing found in it
		}
		defer d.Close()
		nodes, sub, err := w.list(d, parts, rules)
		if err != nil {
			return nil
		}
		for _, n := range nodes {
			rel := prefix + n.parts[len(n.parts)-1]
			if n.isDir {
				if !n.link && (maxDepth < 0 || depth < maxDepth) {
					if err := walk(d, n.parts, sub, rel+"/", depth+1); err != nil {
						return err
					}
				}
				continue
			}
			if doublestar.MatchUnvalidated(rest, rel) {
				var mtime time.Time
				if fi, err := t.ws.Stat(n.rel()); err == nil {
					mtime = fi.ModTime()
				}
				hits = append(hits, globHit{n.rel(), mtime})
			}
		}
		return nil
	}
	if err := walk(nil, parts, rules, "", 1); err != nil {
		return tool.Result{}, err
	}
	if len(hits) == 0 {
		return tool.Text(fmt.Sprintf("no files match %q", in.Pattern)), nil
	}
	slices.SortFunc(hits, func(a, b globHit) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.rel, b.rel)
	})
	var b strings.Builder
	for i, h := range hits {
		if i == globMaxResults {
			fmt.Fprintf(&b, "\n(%d of %d matches shown, newest first; narrow the pattern or path)", globMaxResults, len(hits))
			break
		}
		b.WriteString(shownName(h.rel) + "\n")
	}
	return tool.Text(strings.TrimRight(b.String(), "\n")), nil
}
