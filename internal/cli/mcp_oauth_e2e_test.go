package cli_test

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The MCP TypeScript SDK and its example server with the demo OAuth
// authorization server. CI installs it with
//
//	npm install -g @modelcontextprotocol/sdk
const mcpSDKPackage = "@modelcontextprotocol/sdk"

// npmPackageDir is where npm installed a global package, or skips (fails
// in CI) when it did not.
func npmPackageDir(t *testing.T, pkg, file string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the MCP servers from npm")
	}
	if _, err := exec.LookPath("node"); err == nil {
		if out, err := exec.Command("npm", "root", "-g").Output(); err == nil {
			dir := filepath.Join(strings.TrimSpace(string(out)), pkg)
			if _, err := os.Stat(filepath.Join(dir, file)); err == nil {
				return dir
			}
		}
	}
	msg := fmt.Sprintf("%s is not installed: run `npm install -g %s` (needs node)", pkg, pkg)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// demoOAuthServer starts the SDK's example server with --oauth (taught to
// refresh tokens, testdata/mcp-demo-oauth.mjs) and returns its MCP URL.
func demoOAuthServer(t *testing.T) (string, *watched) {
	t.Helper()
	examples := filepath.Join(npmPackageDir(t, mcpSDKPackage, "dist/esm/examples/server/simpleStreamableHttp.js"), "dist/esm/examples/server")
	fixture, err := filepath.Abs("testdata/mcp-demo-oauth.mjs")
	if err != nil {
		t.Fatal(err)
	}
	port, authPort := freePort(t), freePort(t)
	env := append(os.Environ(), fmt.Sprintf("MCP_PORT=%d", port), fmt.Sprintf("MCP_AUTH_PORT=%d", authPort))
	p := start(t, env, nil, "node", fixture, examples, "--oauth")
	p.waitLine("MCP Streamable HTTP Server listening", time.Minute)
	p.waitLine("OAuth Authorization Server listening", time.Minute)
	return fmt.Sprintf("http://localhost:%d/mcp", port), p
}

// login runs `harness9 mcp login NAME` and plays the user's browser: it
// opens the address the command prints and follows the redirects back
// to the command's loopback address.
func (h *harness) login(name string) string {
	h.t.Helper()
	p := start(h.t, h.env, nil, h.binary(), "mcp", "login", name, "-C", h.workdir)
	line := p.waitLine("/authorize?", time.Minute)
	resp, err := http.Get(strings.TrimSpace(line))
	if err != nil {
		h.t.Fatalf("browser: %v", err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), "logged in") {
		h.t.Errorf("the browser ended on %d %s", resp.StatusCode, page)
	}
	if code := p.wait(time.Minute); code != 0 || !strings.Contains(p.output(), "Logged in to "+name) {
		h.t.Fatalf("mcp login: exit %d\n%s", code, p.output())
	}
	return p.output()
}

type storedLogin struct {
	URL          string    `json:"url"`
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token"`
	Expiry       time.Time `json:"expiry"`
}

// storedLogins reads the login files of the data directory.
func (h *harness) storedLogins() (map[string]storedLogin, map[string]os.FileMode) {
	h.t.Helper()
	files, _ := filepath.Glob(filepath.Join(h.home, "mcp-auth", "*.json"))
	out, modes := map[string]storedLogin{}, map[string]os.FileMode{}
	for _, f := range files {
		var l storedLogin
		if err := json.Unmarshal([]byte(readFile(h.t, f)), &l); err != nil {
			h.t.Fatal(err)
		}
		fi, _ := os.Stat(f)
		out[f], modes[f] = l, fi.Mode().Perm()
	}
	return out, modes
}

// The whole OAuth login against the MCP SDK's example server and its demo
// authorization server: the server needs a login (mcp list, doctor); mcp
// login discovers, registers, runs the code flow with PKCE through the
// browser and stores the tokens, owner only; a run calls the server's
// tool with the token (the server logs it); a token about to expire is
// refreshed and the new one used; logout forgets it. No token appears in
// any output, the session store, other files, or a child's environment.
func TestMCPOAuthLoginAgainstTheSDKExampleServerE2E(t *testing.T) {
	url, server := demoOAuthServer(t)
	everything := everythingBinary(t)
	h := newHarness(t)
	if r := h.run("", "mcp", "add", "-C", h.workdir, "demo", "--url", url); r.code != 0 {
		t.Fatalf("mcp add: exit %d\n%s", r.code, r.stderr)
	}
	if r := h.run("", "mcp", "add", "-C", h.workdir, "everything", "--", everything, "stdio"); r.code != 0 {
		t.Fatalf("mcp add everything: exit %d\n%s", r.code, r.stderr)
	}
	var outputs []string
	keep := func(r result) result { outputs = append(outputs, r.stdout, r.stderr); return r }

	r := keep(h.run("", "mcp", "list", "-C", h.workdir))
	if r.code != 0 || !strings.Contains(r.stdout, "demo (http) needs a login: run `harness9 mcp login demo`") {
		t.Fatalf("mcp list before login: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if d := keep(h.run("", "doctor", "--offline", "-C", h.workdir)); !strings.Contains(d.stdout, "demo: needs a login") {
		t.Errorf("doctor does not say the server needs a login:\n%s", d.stdout)
	}

	outputs = append(outputs, h.login("demo"))
	logins, modes := h.storedLogins()
	if len(logins) != 1 {
		t.Fatalf("stored logins: %v", logins)
	}
	var file string
	var first storedLogin
	for f, l := range logins {
		file, first = f, l
	}
	if first.URL != url || first.AccessToken == "" || first.RefreshToken == "" || modes[file] != 0o600 {
		t.Fatalf("stored login %+v, mode %v", first, modes[file])
	}
	if fi, _ := os.Stat(filepath.Dir(file)); fi.Mode().Perm() != 0o700 {
		t.Errorf("mcp-auth mode %v", fi.Mode().Perm())
	}
	if r := keep(h.run("", "mcp", "get", "-C", h.workdir, "demo")); !strings.Contains(r.stdout, "logged in, the token expires in") {
		t.Errorf("mcp get after login:\n%s", r.stdout)
	}

	// A run calls the protected tool, a shell command and a stdio server,
	// each of which shows its environment.
	model := h.script(`{"turns": [
	  {"calls": [{"name": "mcp__demo__greet", "input": {"name": "Ada"}}, {"name": "bash", "input": {"command": "env"}},
	             {"name": "mcp__everything__get-env", "input": {}}], "match": {"has_tool": "mcp__demo__greet"}},
	  {"text": "Greeted.", "match": {"any_message_contains": "Hello, Ada!"}}
	]}`)
	r = keep(h.run("", "run", "--json", "--allow", "mcp__demo__greet", "-C", h.workdir, "-m", model, "greet Ada"))
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("run: exit %d %v\n%s\n%s", r.code, r.last(), r.stderr, r.stdout)
	}
	res := r.find("tool_result")
	if len(res) != 3 || res[0]["output"] != "Hello, Ada!" || res[1]["is_error"] == true || !strings.Contains(res[2]["output"].(string), "PATH") {
		t.Fatalf("tool results: %v", res)
	}
	if !strings.Contains(server.output(), first.AccessToken) {
		t.Errorf("the server's log does not show the token it was called with")
	}

	// The token is about to expire: the next run refreshes it first.
	var raw map[string]any
	_ = json.Unmarshal([]byte(readFile(t, file)), &raw)
	raw["expiry"] = time.Now().Add(30 * time.Second).Format(time.RFC3339Nano)
	b, _ := json.Marshal(raw)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	model = h.script(`{"turns": [
	  {"calls": [{"name": "mcp__demo__greet", "input": {"name": "Bo"}}], "match": {"has_tool": "mcp__demo__greet"}},
	  {"text": "Again.", "match": {"last_tool_result_contains": "Hello, Bo!"}}
	]}`)
	r = keep(h.run("", "run", "--json", "--allow", "mcp__demo__greet", "-C", h.workdir, "-m", model, "greet Bo"))
	if r.code != 0 || r.last()["status"] != "completed" {
		t.Fatalf("run after expiry: exit %d %v\n%s", r.code, r.last(), r.stderr)
	}
	logins, _ = h.storedLogins()
	second := logins[file]
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken || !second.Expiry.After(time.Now().Add(10*time.Minute)) {
		t.Fatalf("not refreshed: %+v", second)
	}
	server.waitLine("REFRESHED 1 resource="+url, time.Minute)
	if !strings.Contains(server.output(), second.AccessToken) {
		t.Error("the server was not called with the refreshed token")
	}

	secrets := []string{first.AccessToken, first.RefreshToken, second.AccessToken, second.RefreshToken}
	for i, o := range outputs {
		for _, s := range secrets {
			if strings.Contains(o, s) {
				t.Errorf("output %d of harness9 shows a token:\n%s", i, o)
			}
		}
	}
	for _, dir := range []string{h.home, h.workdir} {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Dir(path) == filepath.Dir(file) {
				return nil
			}
			data, _ := os.ReadFile(path)
			for _, s := range secrets {
				if strings.Contains(string(data), s) {
					t.Errorf("%s holds a token", path)
				}
			}
			return nil
		})
	}

	if r := keep(h.run("", "mcp", "logout", "-C", h.workdir, "demo")); r.code != 0 || !strings.Contains(r.stdout, "Logged out of demo") {
		t.Errorf("logout: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the login file is still there: %v", err)
	}
	if r := h.run("", "mcp", "list", "-C", h.workdir); !strings.Contains(r.stdout, "demo (http) needs a login") {
		t.Errorf("mcp list after logout:\n%s", r.stdout)
	}
}

// everythingBinary is the MCP reference server's command, or skips (fails
// in CI) without it.
func everythingBinary(t *testing.T) string {
	t.Helper()
	npmPackageDir(t, "@modelcontextprotocol/server-everything", "dist/index.js")
	path, err := exec.LookPath("mcp-server-everything")
	if err != nil {
		t.Fatal("@modelcontextprotocol/server-everything is installed but mcp-server-everything is not on PATH")
	}
	return path
}
