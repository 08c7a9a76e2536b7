package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool"
)

// Turn is one changing turn of a session with the files it changed.
type Turn struct {
	Turn    int      `json:"turn"`
	Prompt  string   `json:"prompt"`
	Files   []string `json:"files"`
	Rewound bool     `json:"rewound,omitempty"`
}

// Turns groups a session's checkpoints by turn, oldest first.
func Turns(cps []session.Checkpoint) []Turn {
	var out []Turn
	for _, c := range cps {
		if n := len(out); n == 0 || out[n-1].Turn != c.Turn {
			out = append(out, Turn{Turn: c.Turn, Prompt: c.Prompt, Rewound: c.Rewound})
		}
		t := &out[len(out)-1]
		t.Files = append(t.Files, c.Path)
		t.Rewound = t.Rewound && c.Rewound
		if t.Prompt == "" {
			t.Prompt = c.Prompt
		}
	}
	return out
}

// LastLive is the newest turn not yet rewound, or 0.
func LastLive(turns []Turn) int {
	for i := len(turns) - 1; i >= 0; i-- {
		if !turns[i].Rewound {
			return turns[i].Turn
		}
	}
	return 0
}

// Skipped is a file a rewind left alone, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Changed marks a file changed since the agent left it: overwriting it
	// is the user's call.
	Changed bool `json:"changed,omitempty"`
}

// Report says what a rewind did.
type Report struct {
	Turns    []int     `json:"turns"` // rewound, newest first
	Restored []string  `json:"restored"`
	Deleted  []string  `json:"deleted"`
	Skipped  []Skipped `json:"skipped"`
}

// Summary is the report in a few lines for people and for the model.
func (r Report) Summary() string {
	if len(r.Turns) == 0 {
		return "nothing to undo: no file changes of the agent are recorded after that point"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rewound the files of turn %s", joinInts(r.Turns))
	if len(r.Restored) > 0 {
		fmt.Fprintf(&b, "\nrestored: %s", strings.Join(r.Restored, ", "))
	}
	if len(r.Deleted) > 0 {
		fmt.Fprintf(&b, "\ndeleted (did not exist before): %s", strings.Join(r.Deleted, ", "))
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "\nskipped %s: %s", s.Path, s.Reason)
	}
	return b.String()
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// Request is what to rewind.
type Request struct {
	// To is the oldest turn to undo: the workdir goes back to before it.
	To int
	// Overwrite decides, for a file changed since the agent left it,
	// whether to restore it anyway. Nil skips every such file.
	Overwrite func(path string) bool
}

// Conflicts lists the files a rewind to turn to would find changed since
// the agent left them (the newest live turn that touched each decides),
// without touching anything: the question to ask before Rewind.
func Conflicts(ws *tool.Workspace, cps []session.Checkpoint, to int) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range live(cps, to) {
		if seen[c.Path] {
			continue
		}
		seen[c.Path] = true
		if changedSince(ws, c) {
			out = append(out, c.Path)
		}
	}
	slices.Sort(out)
	return out
}

// live is the checkpoints of the turns from to on not yet rewound, newest
// turn first.
func live(cps []session.Checkpoint, to int) []session.Checkpoint {
	var out []session.Checkpoint
	for _, c := range cps {
		if c.Turn >= to && !c.Rewound {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b session.Checkpoint) int { return b.Turn - a.Turn })
	return out
}

// changedSince reports whether the file is no longer as the agent left it.
func changedSince(ws *tool.Workspace, c session.Checkpoint) bool {
	st, err := stateOf(ws, c.Path)
	if err != nil {
		return true // unreadable now (a link planted outside?): not as the agent left it
	}
	return st.exists != c.AfterExists || (st.exists && st.hash != c.AfterHash)
}

// Rewind puts the workdir back to before turn req.To: every live turn from
// it on is undone, newest first, each file restored to its prior content
// and mode or deleted if it did not exist. A file no longer as the agent
// left it is skipped unless req.Overwrite says otherwise. Every write goes
// through ws. The turns are then marked rewound.
func Rewind(ctx context.Context, ws *tool.Workspace, store session.CheckpointStore, sessionID string, req Request) (Report, error) {
	cps, err := store.Checkpoints(ctx, sessionID)
	if err != nil {
		return Report{}, fmt.Errorf("undo: %w", err)
	}
	rep := Report{Restored: []string{}, Deleted: []string{}, Skipped: []Skipped{}}
	todo := live(cps, req.To)
	if len(todo) == 0 {
		return rep, nil
	}
	done := map[string]string{} // path → what happened last, for the report
	skipped := map[string]Skipped{}
	for _, c := range todo {
		if n := len(rep.Turns); n == 0 || rep.Turns[n-1] != c.Turn {
			rep.Turns = append(rep.Turns, c.Turn)
		}
		if _, ok := skipped[c.Path]; ok {
			continue // an older turn's file is not restored under a newer change kept
		}
		if changedSince(ws, c) && (req.Overwrite == nil || !req.Overwrite(c.Path)) {
			skipped[c.Path] = Skipped{Path: c.Path, Changed: true,
				Reason: "changed since the agent left it; left as it is (overwrite to restore it anyway)"}
			delete(done, c.Path)
			continue
		}
		what, err := restore(ws, c)
		if err != nil {
			skipped[c.Path] = Skipped{Path: c.Path, Reason: err.Error()}
			delete(done, c.Path)
			continue
		}
		done[c.Path] = what
	}
	for _, p := range sortedKeys(done) {
		if done[p] == "deleted" {
			rep.Deleted = append(rep.Deleted, p)
		} else {
			rep.Restored = append(rep.Restored, p)
		}
	}
	for _, p := range sortedKeys(skipped) {
		rep.Skipped = append(rep.Skipped, skipped[p])
	}
	if err := store.MarkRewound(ctx, sessionID, req.To); err != nil {
		return rep, fmt.Errorf("undo: the files were restored but the turns could not be marked undone: %w", err)
	}
	return rep, nil
}

// restore puts one file back. A link or special file standing where the
// file was is removed, never written through.
func restore(ws *tool.Workspace, c session.Checkpoint) (string, error) {
	if c.TooLarge {
		return "", errors.New("its earlier content was not kept (too large, or not a regular file)")
	}
	fi, err := ws.Lstat(c.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("cannot restore it: %w", err)
	case fi.IsDir():
		return "", errors.New("a directory stands there now; left as it is")
	case !fi.Mode().IsRegular():
		if err := ws.Remove(c.Path); err != nil {
			return "", fmt.Errorf("cannot remove what stands there now: %w", err)
		}
	}
	if !c.Existed {
		if err := ws.Remove(c.Path); err != nil {
			return "", fmt.Errorf("cannot delete it: %w", err)
		}
		return "deleted", nil
	}
	if _, err := ws.WriteFile(c.Path, c.Content); err != nil {
		return "", fmt.Errorf("cannot restore it: %w", err)
	}
	if c.Mode != 0 {
		if err := ws.Chmod(c.Path, fs.FileMode(c.Mode)); err != nil {
			return "", fmt.Errorf("restored, but its mode could not be set: %w", err)
		}
	}
	return "restored", nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
