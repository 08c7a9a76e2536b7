//go:build !temporal

package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/service"
	"github.com/harness9/harness9/session"
)

// The default build leaves the Temporal engine out (see temporal.go, built
// with -tags temporal): its commands exist, so `harness9 --help` shows
// them and scripts get a clear answer, but each one says how to get a
// harness9 that has it.

// temporalBuiltIn reports whether this binary includes the Temporal engine.
const temporalBuiltIn = false

// errNoTemporal is the refusal of every Temporal command in this build:
// a usage error (exit 2) naming the build command.
func errNoTemporal(what, orElse string) error {
	return usageErr("%s needs the Temporal engine, which this harness9 was built without; build it with "+
		"`go build -tags temporal ./cmd/harness9` (or `go install -tags temporal ./cmd/harness9`)%s", what, orElse)
}

func runDurable(context.Context, *env, *config.Config, *runFlags, string) error {
	return errNoTemporal("harness9 run --engine temporal", fmt.Sprintf(", or run it with --engine %s (config engine = %q)", config.EngineLocal, config.EngineLocal))
}

func durableServeRunner(*env, *config.Config, session.Store) (service.Runner, string, func(), error) {
	return nil, "", nil, errNoTemporal("harness9 serve --engine temporal", fmt.Sprintf(", or serve with --engine %s (config engine = %q)", config.EngineLocal, config.EngineLocal))
}

func newWorkerCmd(*env, *globals) *cobra.Command {
	return refusedTemporalCmd("worker", "Run the steps of durable (--engine temporal) sessions (needs -tags temporal)")
}

func newSessionsReviewCmds(*env, *globals) []*cobra.Command {
	return []*cobra.Command{
		refusedTemporalCmd("approve ID", "Approve the plan a durable session's workflow waits for (needs -tags temporal)"),
		refusedTemporalCmd("refine ID FEEDBACK", "Send feedback on the plan a durable session's workflow waits for (needs -tags temporal)"),
		refusedTemporalCmd("cancel ID", "Cancel a durable session's workflow (needs -tags temporal)"),
		refusedTemporalCmd("answer ID [ASK allow|always|deny]", "List or answer the permission questions a durable session waits on (needs -tags temporal)"),
	}
}

// refusedTemporalCmd is a command of the Temporal engine in a build
// without it. Its flags are not parsed, so whatever a script passes, the
// answer is the build command rather than "unknown flag".
func refusedTemporalCmd(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:                use,
		Short:              short,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return errNoTemporal(cmd.CommandPath(), "")
		},
	}
}
