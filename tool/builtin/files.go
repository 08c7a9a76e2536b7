package builtin

import (
	"context"
	"os"

	"github.com/harness9/harness9/internal/lib/ignore"
	"github.com/harness9/harness9/tool"
)

// Files lists the workspace's files (slash-separated, relative to the
// root) the way the file tools see them: .gitignore rules respected, .git
// skipped, symlinked directories not followed, the deny list left out. It
// stops after limit files (limit <= 0: no limit) and reports whether it
// did. The TUI completes @paths from it.
func Files(ctx context.Context, ws *tool.Workspace, limit int) (files []string, truncated bool, err error) {
	w := walker{ws: ws}
	parts, rules := w.start(ws.Root())
	var walk func(parent *os.File, parts []string, rules *ignore.Rules) error
	walk = func(parent *os.File, parts []string, rules *ignore.Rules) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := w.open(parent, parts)
		if err != nil {
			return nil // unreadable directory: nothing listed from it
		}
		defer d.Close()
		nodes, sub, err := w.list(d, parts, rules)
		if err != nil {
			return nil
		}
		for _, n := range nodes {
			if n.isDir {
				if !n.link {
					if err := walk(d, n.parts, sub); err != nil {
						return err
					}
				}
				continue
			}
			if limit > 0 && len(files) == limit {
				truncated = true
				return errLimit
			}
			files = append(files, n.rel())
		}
		return nil
	}
	if err := walk(nil, parts, rules); err != nil && err != errLimit {
		return nil, false, err
	}
	return files, truncated, nil
}

// errLimit stops a walk that has found enough.
var errLimit = limitError{}

type limitError struct{}

func (limitError) Error() string { return "limit reached" }
