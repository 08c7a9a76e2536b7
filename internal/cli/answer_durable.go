//go:build temporal

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/durable"
	"github.com/harness9/harness9/internal/termtext"
)

// answerTimeout bounds how long `sessions answer` waits for a worker to
// take the answer (the workflow decides, on a worker, which answer counts).
const answerTimeout = 30 * time.Second

// newSessionsAnswerCmd is `sessions answer ID [ASK allow|always|deny]`: the
// permission questions a durable session's workflow waits on, listed, or
// one of them answered, for people who review without serve's page.
func newSessionsAnswerCmd(e *env, g *globals) *cobra.Command {
	var reason string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "answer ID [ASK allow|always|deny]",
		Short: "List the permission questions a durable session waits on, or answer one",
		Long: "With only ID: list the permission questions the session's workflow waits on (a call that needs\n" +
			"a yes: approve --mode confirm, an ask rule). With ASK (the call id a question names) and an answer:\n" +
			"allow runs the call once; always runs it and allows the calls its rule covers for the project (or\n" +
			"the tool for the session when no rule narrower than the whole tool covers it); deny refuses it, and\n" +
			"--reason is what the model is told. A question is answered once: a second answer fails.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 && len(args) != 3 {
				return usageErr("give ID to list the questions, or ID ASK allow|always|deny to answer one")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var ask, answer string
			if len(args) == 3 {
				ask, answer = args[1], args[2]
				switch answer {
				case "allow", "always", "deny":
				default:
					return usageErr("the answer must be allow, always or deny, not %q", answer)
				}
			}
			return answerDurable(cmd.Context(), e, g, args[0], durable.PermissionAnswer{Ask: ask, Answer: answer, Reason: reason}, asJSON)
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "with deny: what the model is told")
	cmd.Flags().BoolVar(&asJSON, "json", false, "list the questions as a JSON array")
	return cmd
}

// answerDurable lists the questions of a session's workflow (a.Ask "") or
// answers one.
func answerDurable(ctx context.Context, e *env, g *globals, idArg string, a durable.PermissionAnswer, asJSON bool) error {
	c, sess, tc, err := openWorkflow(ctx, e, g, idArg, func(string) string { return "so no question waits" })
	if err != nil {
		return err
	}
	defer tc.Close()
	ctx, cancel := context.WithTimeout(ctx, answerTimeout)
	defer cancel()
	if a.Ask == "" {
		qs, err := durable.Questions(ctx, tc, sess.ID)
		if err != nil {
			return withCode(ExitError, fmt.Errorf("no worker answers for session %s (%w); start `harness9 worker` for task queue %s", sess.ID, err, taskQueue(c)))
		}
		return printQuestions(e, sess.ID, qs, asJSON)
	}
	err = durable.AnswerPermission(ctx, tc, sess.ID, a)
	switch {
	case err == nil:
		fmt.Fprintf(e.stderr, "harness9: %s of session %s answered %s; the workflow goes on\n", a.Ask, sess.ID, a.Answer)
		return nil
	case ctx.Err() != nil:
		return withCode(ExitError, fmt.Errorf("no worker took the answer within %s; start `harness9 worker` for task queue %s and retry", answerTimeout, taskQueue(c)))
	}
	return withCode(ExitError, err) // answered already (durable.ErrAnswered), or no such question (ErrNoQuestion)
}

// printQuestions lists questions for a person (each with the command that
// answers it) or as JSON.
func printQuestions(e *env, id string, qs []durable.Question, asJSON bool) error {
	if asJSON {
		if qs == nil {
			qs = []durable.Question{}
		}
		b, err := json.Marshal(qs)
		if err != nil {
			return withCode(ExitError, err)
		}
		fmt.Fprintln(e.stdout, string(b))
		return nil
	}
	if len(qs) == 0 {
		fmt.Fprintf(e.stdout, "No permission question waits in session %s.\n", id)
		return nil
	}
	for _, q := range qs {
		// The tool's name and preview are the model's text: shown clean.
		fmt.Fprintf(e.stdout, "%s  %s (%s)\n%s\n", q.ID, termtext.Clean(q.Tool), termtext.Clean(q.Why), termtext.Clean(q.Preview))
		fmt.Fprintf(e.stdout, "  answer: harness9 sessions answer %s %s allow|always|deny [--reason TEXT]\n", id, q.ID)
	}
	return nil
}
