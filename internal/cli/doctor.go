package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harness9/harness9/harness"
	"github.com/harness9/harness9/internal/termtext"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/internal/trust"
	"github.com/harness9/harness9/sandbox"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/session/postgres"
	"github.com/harness9/harness9/session/sqlite"
	"github.com/harness9/harness9/tool/mcptool"
)

// Timeouts of doctor's network checks: long enough for a slow link, short
// enough that a dead endpoint does not hold the report up.
const (
	doctorHTTPTimeout = 3 * time.Second
	doctorMCPTimeout  = 5 * time.Second
	doctorDBTimeout   = 5 * time.Second
)

// Check outcomes. Only fail makes doctor exit 1: something harness9 needs
// to run is broken. warn is something missing or unreachable that some
// features need.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "fail"
	checkSkip = "skip"
)

// checkResult is one line of the report.
type checkResult struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// doctorRun is what the checks share: the configuration (or why it could
// not be loaded) and the command's flags.
type doctorRun struct {
	e       *env
	cfg     *config.Config
	cfgErr  error
	offline bool
}

// doctorCheck is one row of the table: a name and the function that
// examines it. Add a row to add a line to `harness9 doctor`.
type doctorCheck struct {
	name string
	// needsConfig checks are skipped when the configuration did not load.
	needsConfig bool
	run         func(ctx context.Context, d *doctorRun) (status, detail string)
}

var doctorChecks = []doctorCheck{
	{"version", false, checkVersion},
	{"go", false, checkGo},
	{"config", false, checkConfig},
	{"provider", true, checkProvider},
	{"hosts", false, checkHosts},
	{"endpoint", true, checkEndpoint},
	{"data dir", true, checkDataDir},
	{"database", true, checkDatabase},
	{"sandbox", false, checkSandbox},
	{"policy", true, checkPolicy},
	{"trust", true, checkTrust},
	{"permissions", true, checkPermissions},
	{"hooks", true, checkHooks},
	{"rg", false, checkCommand("rg", "search_files uses it when present")},
	{"git", false, checkCommand("git", "plans and task directories live in the git repository")},
	{"tmux", false, checkCommand("tmux", "needed only by the TUI's end-to-end tests")},
	{"mcp", true, checkMCP},
	{"web", true, checkWeb},
}

func newDoctorCmd(e *env, g *globals) *cobra.Command {
	var asJSON, offline bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the set-up: provider and key, data directory, database, sandbox, tools, MCP servers",
		Long: "doctor prints one line per check: ok, warn (some features need it) or fail (harness9 cannot run).\n" +
			"It exits 1 when a check fails. Keys are never printed, only whether they are set.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d := &doctorRun{e: e, offline: offline}
			d.cfg, d.cfgErr = config.Load(config.Flags{Model: g.model, Effort: g.effort, Workdir: g.workdir, Sandbox: g.sandbox, Allow: g.allow, Deny: g.deny, Store: g.store}, e.getenv)
			results := d.runAll(cmd.Context(), doctorChecks)
			if asJSON {
				if err := writeJSON(e, results); err != nil {
					return withCode(ExitError, err)
				}
			} else {
				// Details quote MCP servers' stderr: shown, never obeyed.
				tw := tabwriter.NewWriter(termtext.Writer(e.stdout), 0, 4, 2, ' ', 0)
				for _, r := range results {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Status, r.Name, r.Detail)
				}
				_ = tw.Flush()
			}
			for _, r := range results {
				if r.Status == checkFail {
					return silent(ExitError)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the checks as a JSON array")
	cmd.Flags().BoolVar(&offline, "offline", false, "skip the network checks (provider endpoint)")
	return cmd
}

func (d *doctorRun) runAll(ctx context.Context, checks []doctorCheck) []checkResult {
	out := make([]checkResult, 0, len(checks))
	for _, c := range checks {
		if c.needsConfig && d.cfg == nil {
			out = append(out, checkResult{c.name, checkSkip, "the configuration did not load"})
			continue
		}
		status, detail := c.run(ctx, d)
		out = append(out, checkResult{c.name, status, detail})
	}
	return out
}

func checkVersion(context.Context, *doctorRun) (string, string) {
	return checkOK, fmt.Sprintf("harness9 %s", Version)
}

func checkGo(ctx context.Context, _ *doctorRun) (string, string) {
	path, err := exec.LookPath("go")
	if err != nil {
		return checkWarn, "go not found in PATH (needed only to build harness9 and run its tests)"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// Not in the workdir: a repository's go.mod may name another toolchain
	// (the go command would fetch and run it), and doctor reports the one
	// on this machine, which is what builds harness9.
	cmd := exec.CommandContext(ctx, path, "version")
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		return checkWarn, fmt.Sprintf("%s does not run: %v", path, err)
	}
	return checkOK, strings.TrimPrefix(strings.TrimSpace(string(out)), "go version ")
}

func checkConfig(_ context.Context, d *doctorRun) (string, string) {
	if d.cfgErr != nil {
		return checkFail, d.cfgErr.Error()
	}
	if _, err := os.Stat(d.cfg.File); err != nil {
		return checkOK, fmt.Sprintf("no %s (defaults and environment)", d.cfg.File)
	}
	return checkOK, d.cfg.File
}

func checkProvider(_ context.Context, d *doctorRun) (string, string) {
	r, err := d.cfg.Resolve(d.e.getenv)
	if err != nil {
		return checkFail, err.Error()
	}
	if r.Provider.Type == config.TypeBedrock && !bedrockBuiltIn {
		return checkFail, errNoBedrock(d.cfg.Model).Error()
	}
	return checkOK, providerDetail(d.cfg, r, d.e.getenv)
}

// checkHosts names the model hosts this binary can reach.
func checkHosts(context.Context, *doctorRun) (string, string) {
	hosts := "openai (Chat Completions, Responses) · anthropic · vertex (Claude on Google Vertex AI) · azure (Azure OpenAI)"
	if bedrockBuiltIn {
		return checkOK, hosts + " · bedrock (Claude on Amazon Bedrock)"
	}
	return checkOK, hosts + " · bedrock: not in this build (go build -tags bedrock ./cmd/harness9)"
}

// checkEndpoint asks the provider's base URL for anything: any HTTP answer,
// even 401 or 404, means the server is there.
func checkEndpoint(ctx context.Context, d *doctorRun) (string, string) {
	r, err := d.cfg.Resolve(d.e.getenv)
	if err != nil || r.Provider.Type == config.TypeScripted {
		return checkSkip, "no network provider"
	}
	url := providerEndpoint(r)
	if url == "" {
		return checkSkip, "the endpoint depends on the AWS profile's region"
	}
	if d.offline {
		return checkSkip, url + " (--offline)"
	}
	ctx, cancel := context.WithTimeout(ctx, doctorHTTPTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return checkWarn, fmt.Sprintf("%s: %v", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return checkWarn, fmt.Sprintf("%s unreachable: %v", url, err)
	}
	resp.Body.Close()
	return checkOK, fmt.Sprintf("%s answers (HTTP %d)", url, resp.StatusCode)
}

func checkDataDir(_ context.Context, d *doctorRun) (string, string) {
	if err := checkHomeWritable(d.cfg.Home); err != nil {
		return checkFail, err.Error()
	}
	return checkOK, d.cfg.Home + " is writable"
}

func checkDatabase(ctx context.Context, d *doctorRun) (string, string) {
	if config.StorePostgres(d.cfg.Store) {
		return checkPostgres(ctx, d.cfg.Store)
	}
	path := session.DefaultPath(d.cfg.Home)
	rep, err := sqlite.Check(ctx, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return checkOK, path + " not created yet (the first session creates it)"
	case err != nil:
		return checkFail, dbProblem(path, err).Error()
	}
	return checkOK, fmt.Sprintf("%s · integrity ok · schema %d · %d sessions", path, rep.SchemaVersion, rep.Sessions)
}

// checkPostgres connects to the --store database and reads its schema
// version, never printing the URL's password.
func checkPostgres(ctx context.Context, dsn string) (string, string) {
	ctx, cancel := context.WithTimeout(ctx, doctorDBTimeout)
	defer cancel()
	where := "PostgreSQL " + postgres.Redact(dsn)
	rep, err := postgres.Check(ctx, dsn)
	if err != nil {
		return checkFail, fmt.Sprintf("%s unreachable or unusable: %v", where, err)
	}
	if rep.SchemaVersion == 0 {
		return checkOK, fmt.Sprintf("%s · server %s · reachable, no harness9 schema yet (the first session creates it)", where, rep.Server)
	}
	return checkOK, fmt.Sprintf("%s · server %s · schema %d · %d sessions", where, rep.Server, rep.SchemaVersion, rep.Sessions)
}

func checkSandbox(_ context.Context, d *doctorRun) (string, string) {
	if d.cfg != nil && d.cfg.Sandbox.Mode == config.SandboxOff {
		return checkWarn, "off by your choice (--sandbox off or [sandbox] mode): commands run unconfined; " + planBashNote(d.cfg) + "; Default mode asks before each bash call"
	}
	s := sandbox.Probe()
	if !s.Available {
		return checkWarn, fmt.Sprintf("regime: %s — not enforced: %s; %s; Default mode asks before each bash call",
			sandbox.RegimeNone, s.Reason, planBashNote(d.cfg))
	}
	detail := fmt.Sprintf("Landlock ABI %d: enforced for every bash call; regime: ", s.ABI)
	ok, why := sandbox.ProbeNamespaces()
	if ok {
		return checkOK, detail + fmt.Sprintf("%s — %s", sandbox.RegimeNamespaces, sandbox.RegimeNamespaces.Guarantees())
	}
	return checkOK, detail + fmt.Sprintf("%s (%s) — %s", sandbox.RegimeNoNamespaces, why, sandbox.RegimeNoNamespaces.Guarantees())
}

// planBashNote says what Plan Mode does with bash without the sandbox.
func planBashNote(c *config.Config) string {
	if c != nil && c.Sandbox.PlanBash == config.PlanBashGated {
		return "Plan Mode's bash is guarded by the parse gate alone (plan_bash = \"gated\")"
	}
	return "Plan Mode offers no bash"
}

// checkPolicy prints what each mode's commands may do, and their limits.
func checkPolicy(_ context.Context, d *doctorRun) (string, string) {
	if d.cfg.Sandbox.Mode == config.SandboxOff || !sandbox.Probe().Available {
		return checkSkip, "no kernel sandbox"
	}
	network := "no network"
	if d.cfg.Sandbox.Network {
		network = "network allowed ([sandbox] network = true)"
	}
	return checkOK, "plan: read-only (reads the workdir, system and toolchain dirs; writes nothing; no network) · " +
		"default, auto-edit: workspace-write (reads all but the deny list; writes the workdir; " + network + ") · " +
		"limits per command: " + limitsText(d.cfg.Sandbox.Limits)
}

// limitsText describes the resource limits for people.
func limitsText(l sandbox.Limits) string {
	part := func(v int64, unit string) string {
		if v == 0 {
			return "unlimited"
		}
		return fmt.Sprintf("%d%s", v, unit)
	}
	cpu := "unlimited"
	if l.CPUTime > 0 {
		cpu = l.CPUTime.String()
	}
	return fmt.Sprintf("%s processes, files up to %s, CPU %s per process ([sandbox] max_processes, max_file_mb, max_cpu)",
		part(int64(l.Processes), ""), part(l.FileSize>>20, " MiB"), cpu)
}

// checkTrust reports whether the project may start what it configures.
func checkTrust(_ context.Context, d *doctorRun) (string, string) {
	m, err := projectManifest(d.cfg)
	if err != nil {
		return checkWarn, fmt.Sprintf(".mcp.json cannot be read: %v", err)
	}
	ok, why := trustState(d.cfg)
	switch {
	case m.Empty():
		return checkOK, "nothing in this project needs trust (no .mcp.json servers or project hooks)"
	case ok:
		return checkOK, fmt.Sprintf("%s is trusted: %s", d.cfg.Workdir, manifestSummary(m))
	}
	return checkWarn, fmt.Sprintf("%s: %s do not run; read them, then run `harness9 trust`", why, manifestSummary(m))
}

// manifestSummary names the items of m in one line.
func manifestSummary(m trust.Manifest) string {
	names := make([]string, len(m.Items))
	for i, it := range m.Items {
		names[i] = it.Kind + " " + it.Name
	}
	return strings.Join(names, ", ")
}

// checkCommand reports whether an external program is on PATH.
func checkCommand(name, why string) func(context.Context, *doctorRun) (string, string) {
	return func(context.Context, *doctorRun) (string, string) {
		path, err := exec.LookPath(name)
		if err != nil {
			return checkWarn, fmt.Sprintf("not found in PATH (%s)", why)
		}
		return checkOK, path
	}
}

func checkMCP(ctx context.Context, d *doctorRun) (string, string) {
	servers, err := mcpServers(d.cfg)
	if err != nil {
		return checkFail, err.Error()
	}
	if len(servers) == 0 {
		return checkOK, "no servers configured"
	}
	// The servers start exactly as a session starts them: confined, with
	// the scrubbed environment.
	ws, err := projectWorkspace(d.cfg, d.cfg.Workdir)
	if err != nil {
		return checkFail, err.Error()
	}
	sb, err := newSandbox(d.cfg, ws, os.Getenv)
	if err != nil {
		return checkFail, err.Error()
	}
	ctx, cancel := context.WithTimeout(ctx, doctorMCPTimeout+2*time.Second)
	defer cancel()
	m, err := harness.ConnectMCP(ctx, sb, append(environment(d.cfg, os.Getenv),
		harness.WithMCP(servers, append(mcpOptions(d.cfg), mcptool.WithTimeout(doctorMCPTimeout))...))...)
	if err != nil {
		return checkWarn, err.Error()
	}
	defer m.Close()
	status := checkOK
	var parts []string
	for _, st := range m.Status() {
		if !st.Connected {
			status = checkWarn
		}
		parts = append(parts, fmt.Sprintf("%s: %s", st.Name, serverState(st)))
	}
	return status, strings.Join(parts, " · ")
}
