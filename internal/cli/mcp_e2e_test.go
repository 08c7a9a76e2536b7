package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const commentedConfig = `# my settings
model = "openai/gpt-4.1"   # default model

# the sandbox
[sandbox]
network = false
`

// mcp add / get / remove through the binary: config.toml keeps its text,
// secrets are never printed, mistakes are usage errors.
func TestMCPAddGetRemoveE2E(t *testing.T) {
	h := newHarness(t)
	cfgPath := filepath.Join(h.home, "config.toml")
	writeFile(t, cfgPath, commentedConfig)

	r := h.run("", "mcp", "add", "-C", h.workdir, "everything", "--", "npx", "-y", "@modelcontextprotocol/server-everything")
	if r.code != 0 || !strings.Contains(r.stdout, "Added MCP server everything") {
		t.Fatalf("add stdio: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.run("", "mcp", "add", "-C", h.workdir, "github", "--url", "https://api.githubcopilot.com/mcp/", "--header", "Authorization=Bearer ${GITHUB_PAT}")
	if r.code != 0 || strings.Contains(r.stderr, "Authorization header is written") {
		t.Fatalf("add http: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.run("", "mcp", "add", "-C", h.workdir, "literal", "--url", "https://example.com/mcp", "--header", "X-Api-Key=s3cr3t-value")
	if r.code != 0 || !strings.Contains(r.stderr, "X-Api-Key header is written") {
		t.Fatalf("add with a literal key: exit %d\n%s", r.code, r.stderr)
	}
	text := readFile(t, cfgPath)
	if !strings.HasPrefix(text, commentedConfig) {
		t.Fatalf("config.toml lost its text:\n%s", text)
	}
	for _, want := range []string{"[mcp_servers.everything]", "args = ['-y', '@modelcontextprotocol/server-everything']", "[mcp_servers.github.headers]", "Authorization = 'Bearer ${GITHUB_PAT}'"} {
		if !strings.Contains(text, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, text)
		}
	}

	r = h.run("", "mcp", "get", "-C", h.workdir, "github")
	if r.code != 0 || !strings.Contains(r.stdout, "https://api.githubcopilot.com/mcp/") ||
		!strings.Contains(r.stdout, "Authorization=Bearer ${GITHUB_PAT}") || !strings.Contains(r.stdout, "none needed") {
		t.Errorf("get github: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.run("", "mcp", "get", "-C", h.workdir, "literal")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "s3cr3t") || !strings.Contains(r.stdout, "X-Api-Key=****") || !strings.Contains(r.stdout, "not logged in") {
		t.Errorf("get literal (the key must not be shown): exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = h.run("", "mcp", "get", "-C", h.workdir, "everything")
	if r.code != 0 || !strings.Contains(r.stdout, "npx -y @modelcontextprotocol/server-everything") || strings.Contains(r.stdout, "login") {
		t.Errorf("get everything: exit %d\n%s", r.code, r.stdout)
	}

	for _, bad := range [][]string{
		{"mcp", "add", "nothing"},
		{"mcp", "add", "both", "--url", "https://x", "--", "cmd"},
		{"mcp", "add", "everything", "--", "other"},
		{"mcp", "add", "bad name", "--", "cmd"},
		{"mcp", "add", "h", "--url", "https://x", "--header", "novalue"},
		{"mcp", "get", "nope"},
		{"mcp", "remove", "nope"},
		{"mcp", "login", "everything"},
	} {
		r := h.run("", append(bad, "-C", h.workdir)...)
		noCrash(t, strings.Join(bad, " "), r)
		if r.code != 2 || r.stderr == "" {
			t.Errorf("%v: exit %d, stderr %q (want a usage error)", bad, r.code, r.stderr)
		}
	}
	if got := readFile(t, cfgPath); got != text {
		t.Errorf("a refused command changed config.toml:\n%s", got)
	}

	r = h.run("", "mcp", "remove", "-C", h.workdir, "github")
	if r.code != 0 {
		t.Fatalf("remove: exit %d\n%s", r.code, r.stderr)
	}
	r = h.run("", "mcp", "remove", "-C", h.workdir, "literal")
	r = h.run("", "mcp", "remove", "-C", h.workdir, "everything")
	if got := readFile(t, cfgPath); got != commentedConfig {
		t.Errorf("after removing every server added, config.toml =\n%s\nwant\n%s", got, commentedConfig)
	}
}

// --project writes the project's .mcp.json, whose servers wait for trust.
func TestMCPAddProjectE2E(t *testing.T) {
	h := newHarness(t)
	r := h.run("", "mcp", "add", "-C", h.workdir, "--project", "echo", "--env", "GREETING=${USER}", "--", "echo-server", "--stdio")
	if r.code != 0 || !strings.Contains(r.stdout, "harness9 trust") {
		t.Fatalf("add --project: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var f struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(h.workdir, ".mcp.json"))), &f); err != nil {
		t.Fatal(err)
	}
	if s := f.MCPServers["echo"]; s.Command != "echo-server" || s.Args[0] != "--stdio" || s.Env["GREETING"] != "${USER}" {
		t.Errorf(".mcp.json server = %+v", s)
	}
	if _, err := os.Stat(filepath.Join(h.home, "config.toml")); err == nil {
		t.Error("--project wrote config.toml")
	}
	r = h.run("", "mcp", "get", "-C", h.workdir, "echo")
	if r.code != 0 || !strings.Contains(r.stdout, "not trusted") || !strings.Contains(r.stdout, "GREETING=${USER}") {
		t.Errorf("get: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = h.run("", "mcp", "add", "-C", h.workdir, "--project", "x", "--unconfined", "--", "cmd"); r.code != 2 {
		t.Errorf("--unconfined in a project: exit %d", r.code)
	}
	r = h.run("", "mcp", "remove", "-C", h.workdir, "echo")
	if r.code != 2 || !strings.Contains(r.stderr, "--project") {
		t.Errorf("remove without --project: exit %d\n%s", r.code, r.stderr)
	}
	r = h.run("", "mcp", "remove", "-C", h.workdir, "--project", "echo")
	if r.code != 0 || strings.Contains(readFile(t, filepath.Join(h.workdir, ".mcp.json")), "echo") {
		t.Errorf("remove --project: exit %d\n%s", r.code, r.stderr)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// watched is a long-running process whose output lines a test watches.
type watched struct {
	t        *testing.T
	cmd      *exec.Cmd
	mu       sync.Mutex
	out, err bytes.Buffer
	done     chan struct{}
	code     int
}

// start runs name with args and env, collecting its output.
func start(t *testing.T, env []string, stdin io.Reader, name string, args ...string) *watched {
	t.Helper()
	p := &watched{t: t, cmd: exec.Command(name, args...), done: make(chan struct{})}
	p.cmd.Env, p.cmd.Stdin = env, stdin
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	read := func(r io.Reader, buf *bytes.Buffer) {
		defer wg.Done()
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			buf.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
	}
	wg.Add(2)
	go read(stdout, &p.out)
	go read(stderr, &p.err)
	go func() {
		wg.Wait()
		err := p.cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			p.code = ee.ExitCode()
		}
		close(p.done)
	}()
	t.Cleanup(p.stop)
	return p
}

// waitLine returns the first line printed (so far, or from now on)
// containing want, or fails the test.
func (p *watched) waitLine(want string, limit time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		for _, l := range strings.Split(p.output(), "\n") {
			if strings.Contains(l, want) {
				return l
			}
		}
		select {
		case <-p.done:
			p.t.Fatalf("%s ended (exit %d) before printing %q:\n%s", p.cmd.Path, p.code, want, p.output())
		default:
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s did not print %q:\n%s", p.cmd.Path, want, p.output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait waits for the process to end and returns its exit code.
func (p *watched) wait(limit time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(limit):
		p.t.Fatalf("%s did not end:\n%s", p.cmd.Path, p.output())
	}
	return -1
}

func (p *watched) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String() + p.err.String()
}

func (p *watched) stop() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	<-p.done
}
