package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/harness9/harness9/internal/termtext"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/checkpoint"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/session"
)

// newRewindCmd is `sessions rewind ID --to TURN [--force] [--json]`: the
// headless undo. Files changed since the agent left them are skipped and
// reported unless --force.
func newRewindCmd(e *env, g *globals) *cobra.Command {
	var to int
	var force, asJSON bool
	cmd := &cobra.Command{
		Use:   "rewind ID --to TURN",
		Short: "Put the session's workdir back to before a turn (see `sessions show` for the turns)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if to < 1 {
				return withCode(ExitUsage, errors.New("--to TURN is required: a turn number from `harness9 sessions show ID`"))
			}
			return withStore(e, g, func(c *config.Config, s session.Store) error {
				return rewindSession(cmd.Context(), e, c, s, args[0], to, force, asJSON)
			})
		},
	}
	cmd.Flags().IntVar(&to, "to", 0, "the oldest turn to undo: the workdir goes back to before it")
	cmd.Flags().BoolVar(&force, "force", false, "also restore files changed since the agent left them")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func rewindSession(ctx context.Context, e *env, c *config.Config, s session.Store, id string, to int, force, asJSON bool) error {
	cs, ok := s.(session.CheckpointStore)
	if !ok {
		return withCode(ExitError, agent.ErrNoCheckpoints)
	}
	sess, err := s.Get(ctx, id)
	if err != nil {
		return storeErr(err)
	}
	// Files are restored into the session's own workdir, not -C's, and
	// not while another process runs the session.
	lock, err := session.AcquireLock(session.LockDir(c.Home), sess.ID)
	if err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return withCode(ExitError, err)
	}
	defer lock.Release()
	ws, err := projectWorkspace(c, sess.Workdir)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("the session's workdir cannot be opened: %w", err))
	}
	var overwrite func(string) bool
	if force {
		overwrite = func(string) bool { return true }
	}
	rep, err := checkpoint.Rewind(ctx, ws, cs, sess.ID, checkpoint.Request{To: to, Overwrite: overwrite})
	if err != nil {
		return withCode(ExitError, err)
	}
	if len(rep.Turns) > 0 {
		if err := s.AppendMessage(ctx, sess.ID, agent.RewindNote(rep)); err != nil {
			return withCode(ExitError, err)
		}
	}
	if asJSON {
		if rep.Turns == nil {
			rep.Turns = []int{}
		}
		return writeJSON(e, rep)
	}
	// File names are the model's: shown, never obeyed by the terminal.
	fmt.Fprintln(e.stdout, termtext.Clean(rep.Summary()))
	return nil
}

// writeTurns lists a session's checkpointed turns for `sessions show`.
func writeTurns(w io.Writer, turns []checkpoint.Turn) {
	if len(turns) == 0 {
		return
	}
	fmt.Fprintf(w, "\n# Checkpoints (undo with: harness9 sessions rewind ID --to TURN)\n")
	for _, t := range turns {
		mark := ""
		if t.Rewound {
			mark = " (undone)"
		}
		fmt.Fprintf(w, "turn %d%s: %s\n  %s\n", t.Turn, mark, t.Prompt, strings.Join(t.Files, ", "))
	}
}
