package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"github.com/harness9/harness9/internal/acp"
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/session"
	"github.com/harness9/harness9/tool"
	"github.com/harness9/harness9/tool/mcptool"
)

// runtimeOptions are what a front end adds to the CLI's set-up of a
// session (newRuntime): `acp` gives the client's MCP servers and editor.
type runtimeOptions struct {
	workspace []tool.WorkspaceOption
	userMCP   map[string]mcptool.ServerConfig
	notices   io.Writer // where the runtime's notices go (default stderr)
}

type runtimeOption func(*runtimeOptions)

// withUserMCP adds MCP servers that are the user's own, like config.toml's
// (they start whether or not the project is trusted); they win a name clash.
func withUserMCP(servers map[string]mcptool.ServerConfig) runtimeOption {
	return func(o *runtimeOptions) { o.userMCP = servers }
}

// withEditor makes the file tools read and write through an editor.
func withEditor(e tool.Editor) runtimeOption {
	return func(o *runtimeOptions) {
		if e != nil {
			o.workspace = append(o.workspace, tool.WithEditor(e))
		}
	}
}

func newACPCmd(e *env, g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on stdio (editors: Zed, JetBrains, Neovim)",
		Long: "Run harness9 as an Agent Client Protocol agent: an editor starts it and talks JSON-RPC\n" +
			"on its stdin and stdout. Each session the editor opens runs in its own directory with the\n" +
			"same store, sandbox, permissions, hooks, skills and MCP servers as the TUI; sessions are\n" +
			"listed by `harness9 sessions list` and can be resumed in the TUI. Only protocol messages\n" +
			"are written on stdout; diagnostics go to stderr.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runACP(cmd.Context(), e, g)
		},
	}
}

func runACP(ctx context.Context, e *env, g *globals) error {
	c, err := g.load(e, config.Flags{})
	if err != nil {
		return err
	}
	out, err := protocolOutput(e)
	if err != nil {
		return withCode(ExitError, err)
	}
	h := &acpHost{e: e, g: g, cfg: c}
	defer h.close()
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return acp.Serve(ctx, e.stdin, out, h, acp.WithVersion(Version), acp.WithLogger(logger))
}

// acpHost opens ACP sessions with the CLI's set-up, one runtime per
// session (each session has its own directory, and its own MCP servers
// from the client).
type acpHost struct {
	e   *env
	g   *globals
	cfg *config.Config

	mu    sync.Mutex
	store session.Store // for session/list, opened on first use
}

func (h *acpHost) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.store != nil {
		h.store.Close()
	}
}

// Ready implements acp.Host: the configured model can be used.
func (h *acpHost) Ready() error {
	_, _, err := newProvider(h.cfg, h.e.getenv)
	return err
}

// Vision implements acp.Host.
func (h *acpHost) Vision() bool {
	r, err := h.cfg.Resolve(h.e.getenv)
	return err == nil && vision(r)
}

// Open implements acp.Host: the session's directory gets its own project
// configuration, trust decision, workspace and servers, as if harness9
// were started there (`harness9 -C DIR`).
func (h *acpHost) Open(ctx context.Context, o acp.OpenOptions) (*acp.Runtime, error) {
	sg := *h.g
	sg.workdir = o.Workdir
	c, err := sg.load(h.e, config.Flags{})
	if err != nil {
		return nil, err
	}
	if ws, err := projectWorkspace(c, c.Workdir); err != nil {
		return nil, fmt.Errorf("%w: %v", acp.ErrNotAllowed, err)
	} else if ws.Denied(ws.Root()) {
		return nil, fmt.Errorf("%w: %s holds credentials or harness9's own data, which the agent never opens; open a project directory", acp.ErrNotAllowed, c.Workdir)
	}
	p, r, err := newProvider(c, h.e.getenv)
	if err != nil {
		return nil, err
	}
	rt, err := newRuntime(ctx, h.e, c, p, r, withUserMCP(o.MCP), withEditor(o.Editor))
	if err != nil {
		return nil, err
	}
	eng, err := rt.newEngine(engineOptions{resumeID: o.ResumeID})
	if err != nil {
		rt.Close()
		return nil, err
	}
	cmds := make([]acp.Command, len(rt.commands))
	for i, cm := range rt.commands {
		cmds[i] = acp.Command{Name: cm.Name, Description: cm.Description, Hint: cm.ArgumentHint}
	}
	return &acp.Runtime{
		Engine:      eng,
		Workspace:   rt.ws,
		Commands:    cmds,
		Expand:      rt.expandCommand,
		CheckPrompt: func(prompt string) error { return checkPromptSize(rt, prompt) },
		Notices:     append(append([]string(nil), c.Warnings...), rt.takeNotices()...),
		Discard:     func() error { return rt.store.Delete(context.Background(), eng.SessionID()) },
		Close:       rt.Close,
	}, nil
}

// List implements acp.Host: the sessions `harness9 sessions list` shows.
func (h *acpHost) List(ctx context.Context, workdir string) ([]session.Summary, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.store == nil {
		s, err := openStore(ctx, h.cfg)
		if err != nil {
			return nil, err
		}
		h.store = s
	}
	if workdir != "" {
		if real, err := filepath.EvalSymlinks(workdir); err == nil {
			workdir = real
		}
	}
	return h.store.ListSummaries(ctx, session.ListOptions{Workdir: workdir})
}

// protocolOutput is where protocol messages go: the process's standard
// output, which from now on is only theirs. File descriptor 1 itself is
// pointed at standard error, so that nothing else in the process (a
// library that prints, a child that inherits it) can write a line that
// would break the protocol.
func protocolOutput(e *env) (io.Writer, error) {
	if !isStdout(e.stdout) {
		return e.stdout, nil
	}
	return reserveStdout()
}
