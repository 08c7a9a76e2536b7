package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/checkpoint"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/lib/eventjson"
	"github.com/harness9/harness9/internal/termtext"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

func newSessionsCmd(e *env, g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "sessions", Short: "List, show, rewind and delete stored sessions"}
	var listJSON, showJSON, all, children bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List sessions of this workdir, newest first (--all for every workdir)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(e, g, func(c *config.Config, s session.Store) error {
				opts := session.ListOptions{Workdir: c.Workdir, IncludeChildren: children}
				if all {
					opts.Workdir = ""
				}
				list, err := s.ListSummaries(cmd.Context(), opts)
				if err != nil {
					return withCode(ExitError, err)
				}
				return printSessions(e, list, listJSON)
			})
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print a JSON array")
	list.Flags().BoolVar(&all, "all", false, "list sessions of every workdir")
	list.Flags().BoolVar(&children, "sub-agents", false, "also list the sessions of sub-agents (task calls), marked with their parent")
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show a session with its messages, todos and plan",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(e, g, func(c *config.Config, s session.Store) error {
				return showSession(cmd.Context(), e, s, args[0], showJSON, c.PriceOf)
			})
		},
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print the session as one JSON object")
	del := &cobra.Command{
		Use:   "delete ID",
		Short: "Delete a session and its history",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withStore(e, g, func(c *config.Config, s session.Store) error {
				sess, err := s.Get(cmd.Context(), args[0])
				if err != nil {
					return storeErr(err)
				}
				// A session another process is running is not deleted under it.
				lock, err := lockSession(cmd.Context(), c, s, sess.ID)
				if err != nil && !errors.Is(err, errors.ErrUnsupported) {
					return withCode(ExitError, err)
				}
				if lock != nil {
					defer lock.Release()
				}
				if err := s.Delete(cmd.Context(), sess.ID); err != nil {
					return withCode(ExitError, err)
				}
				fmt.Fprintf(e.stdout, "deleted %s\n", sess.ID)
				return nil
			})
		},
	}
	cmd.AddCommand(list, show, del, newRewindCmd(e, g))
	cmd.AddCommand(newSessionsReviewCmds(e, g)...)
	return cmd
}

// storeErr maps a lookup failure to its exit code: a wrong id is a usage error.
func storeErr(err error) error {
	if isNotFound(err) {
		return withCode(ExitUsage, err)
	}
	return withCode(ExitError, err)
}

func withStore(e *env, g *globals, fn func(*config.Config, session.Store) error) error {
	c, err := g.load(e, config.Flags{})
	if err != nil {
		return err
	}
	s, err := openStore(context.Background(), c)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(c, s)
}

func printSessions(e *env, rows []session.Summary, asJSON bool) error {
	if asJSON {
		return writeJSON(e, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stderr, "no sessions yet; start one with harness9 or harness9 run PROMPT")
		return nil
	}
	return writeSessionTable(e.stdout, rows)
}

// listTitle is a session's title as the list shows it; a sub-agent's names
// its parent.
func listTitle(s session.Session) string {
	if s.ParentID == "" {
		return firstLine(s.Title, 60)
	}
	return "↳ " + firstLine(s.Title, 50) + " (sub-agent of " + shortID(s.ParentID) + ")"
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// sessionDetail is `sessions show --json`.
type sessionDetail struct {
	Session    session.Session     `json:"session"`
	Status     planning.Status     `json:"status"`
	Todos      []planning.TodoItem `json:"todos"`
	Plan       *planning.Plan      `json:"plan"`
	TaskDir    string              `json:"task_dir,omitempty"`
	PlanFile   string              `json:"plan_file,omitempty"`
	Evidence   int                 `json:"evidence"`
	Compaction *session.Compaction `json:"compaction,omitempty"`
	Messages   []shownMessage      `json:"messages"`
	// Checkpoints are the turns undo can go back before (sessions rewind).
	Checkpoints []checkpoint.Turn `json:"checkpoints"`
	// Subagents are the sessions of the sub-agents this session's task
	// calls started, newest first.
	Subagents []session.Session `json:"subagents"`
	// Usage is what the session and its sub-agents used, priced as
	// `harness9 stats` prices it; nil for a store that keeps no usage.
	Usage *usageGroup `json:"usage,omitempty"`
}

// shownMessage is a stored message as sessions show prints it: images are
// described, never dumped as base64.
type shownMessage struct {
	llm.Message
	Images []shownImage `json:"images,omitempty"` // shadows Message.Images
}

type shownImage struct {
	MediaType   string `json:"media_type"`
	Name        string `json:"name,omitempty"`
	Width       int    `json:"width,omitempty"`
	Height      int    `json:"height,omitempty"`
	Bytes       int    `json:"bytes"`
	Placeholder string `json:"placeholder"`
}

func showMessages(msgs []llm.Message) []shownMessage {
	out := make([]shownMessage, len(msgs))
	for i, m := range msgs {
		out[i].Message = m
		out[i].Message.Images = nil
		for _, im := range m.Images {
			out[i].Images = append(out[i].Images, shownImage{MediaType: im.MediaType, Name: im.Name,
				Width: im.Width, Height: im.Height, Bytes: len(im.Data), Placeholder: im.Placeholder()})
		}
	}
	return out
}

func showSession(ctx context.Context, e *env, s session.Store, id string, asJSON bool, price func(string) (llm.Price, bool)) error {
	sess, err := s.Get(ctx, id)
	if err != nil {
		return storeErr(err)
	}
	msgs, err := s.Messages(ctx, sess.ID)
	if err != nil {
		return withCode(ExitError, err)
	}
	st, err := s.LoadState(ctx, sess.ID)
	if err != nil {
		return withCode(ExitError, err)
	}
	kids, err := s.List(ctx, session.ListOptions{Parent: sess.ID})
	if err != nil {
		return withCode(ExitError, err)
	}
	d := sessionDetail{Session: sess, Status: st.Status, Todos: eventjson.TodoItems(st.Todos), Plan: st.Plan, TaskDir: st.TaskDir,
		PlanFile: st.PlanFile, Evidence: st.Evidence, Compaction: st.Compaction, Messages: showMessages(msgs), Subagents: kids}
	if d.Status == "" {
		d.Status = planning.StatusIdle
	}
	d.Compaction = countedCompaction(d.Compaction)
	d.Checkpoints = []checkpoint.Turn{}
	if cs, ok := s.(session.CheckpointStore); ok {
		cps, err := cs.Checkpoints(ctx, sess.ID)
		if err != nil {
			return withCode(ExitError, err)
		}
		if turns := checkpoint.Turns(cps); turns != nil {
			d.Checkpoints = turns
		}
	}
	if _, ok := s.(session.UsageStore); ok {
		// The same query and pricing as `harness9 stats`.
		r, err := usageReport(ctx, s, session.UsageQuery{By: session.BySession, Session: sess.ID}, price)
		if err != nil {
			return err
		}
		d.Usage = &r.Total
	}
	if asJSON {
		return writeJSON(e, d)
	}
	// The conversation is the model's and its tools' text: shown, never
	// obeyed by the terminal.
	w := termtext.Writer(e.stdout)
	fmt.Fprintf(w, "session  %s\ntitle    %s\nworkdir  %s\nmodel    %s\nmode     %s\nstatus   %s\ncreated  %s\nupdated  %s\n",
		sess.ID, sess.Title, sess.Workdir, sess.Model, sess.Mode, d.Status,
		sess.Created.Local().Format(time.DateTime), sess.Updated.Local().Format(time.DateTime))
	if sess.ParentID != "" {
		fmt.Fprintf(w, "parent   %s (this is a sub-agent's session)\n", sess.ParentID)
	}
	if u := d.Usage; u != nil {
		cached := fmt.Sprintf("%d cached", u.CacheReadTokens)
		if u.CacheWriteTokens > 0 {
			cached += fmt.Sprintf(", %d written to the cache", u.CacheWriteTokens)
		}
		output := fmt.Sprintf("%d output", u.OutputTokens)
		if u.ReasoningTokens > 0 {
			output += fmt.Sprintf(" (%d reasoning)", u.ReasoningTokens)
		}
		fmt.Fprintf(w, "usage    %d model calls, %d input tokens (%s), %s, %d tool calls, %s",
			u.ModelCalls, u.InputTokens, cached, output, u.ToolCalls, costText(*u))
		if len(kids) > 0 {
			fmt.Fprint(w, " (sub-agents included)")
		}
		fmt.Fprintln(w)
	}
	if d.TaskDir != "" {
		fmt.Fprintf(w, "task dir %s\n", d.TaskDir)
	}
	if c := d.Compaction; c != nil && c.Count > 0 {
		fmt.Fprintf(w, "compacted %d× (%d with a summary by the model), ~%d tokens saved\n", c.Count, c.Summaries, c.TokensSaved)
	}
	if d.Plan != nil {
		fmt.Fprintf(w, "\n# Plan: %s\n%s\n", d.Plan.Title, d.Plan.Content)
		for i, step := range d.Plan.Steps {
			fmt.Fprintf(w, "%d. %s\n", i+1, step)
		}
	}
	if len(d.Todos) > 0 {
		done, _, total := planning.Progress(d.Todos)
		fmt.Fprintf(w, "\n# Todos (%d/%d done)\n", done, total)
		writeTodos(w, d.Todos)
	}
	writeTurns(w, d.Checkpoints)
	if len(kids) > 0 {
		fmt.Fprintf(w, "\n# Sub-agents (%d; harness9 sessions show ID)\n", len(kids))
		for _, k := range kids {
			fmt.Fprintf(w, "%s  %d messages  %s\n", k.ID, k.MessageCount, firstLine(k.Title, 60))
		}
	}
	fmt.Fprintf(w, "\n# Messages (%d)\n", len(msgs))
	for _, m := range msgs {
		writeMessage(w, m)
	}
	return nil
}

func writeMessage(w interface{ Write([]byte) (int, error) }, m llm.Message) {
	switch m.Role {
	case llm.RoleTool:
		mark := "result"
		if m.IsError {
			mark = "error"
		}
		fmt.Fprintf(w, "  [%s %s] %s\n", m.Name, mark, firstLine(m.Content, 160))
		for _, im := range m.Images {
			fmt.Fprintf(w, "    %s\n", im.Placeholder())
		}
	default:
		if m.Content != "" {
			fmt.Fprintf(w, "%s: %s\n", m.Role, m.Content)
		}
		for _, im := range m.Images {
			fmt.Fprintf(w, "%s: %s\n", m.Role, im.Placeholder())
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(w, "  → %s %s\n", c.Name, firstLine(string(c.Input), 160))
		}
	}
}

func writeJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// countedCompaction is c with its counts, for a session compacted before
// they were kept: its one stored summary counts as one compaction.
func countedCompaction(c *session.Compaction) *session.Compaction {
	if c == nil || c.Count > 0 || c.Covered == 0 {
		return c
	}
	n := *c
	n.Count, n.Summaries, n.TokensSaved = 1, 1, max(c.BeforeTokens-c.AfterTokens, 0)
	return &n
}
