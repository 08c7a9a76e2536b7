package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The protocol's error cases, over the binary's stdin and stdout: every
// bad message gets a JSON-RPC error, the process lives on, and stdout
// carries nothing but protocol messages.

// rawACP is `harness9 acp` driven line by line.
type rawACP struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	seen  []string // every stdout line, in order
}

func (h *harness) rawACP(args ...string) *rawACP {
	h.t.Helper()
	cmd := exec.Command(h.binary(), append([]string{"acp"}, args...)...)
	cmd.Env = h.env
	in, err := cmd.StdinPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	a := &rawACP{t: h.t, cmd: cmd, in: in, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			a.lines <- sc.Text()
		}
		close(a.lines)
	}()
	h.t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return a
}

func (a *rawACP) send(line string) {
	a.t.Helper()
	if _, err := io.WriteString(a.in, line+"\n"); err != nil {
		a.t.Fatalf("the agent stopped reading: %v", err)
	}
}

// reply reads lines until the response with id (a JSON literal; "null"
// for the answers to messages without a usable id) and returns it.
func (a *rawACP) reply(id string) map[string]any {
	a.t.Helper()
	deadline := time.After(2 * time.Minute) // a hang, not a measurement
	for {
		select {
		case line, ok := <-a.lines:
			if !ok {
				a.t.Fatalf("the agent closed stdout while a reply to %s was due; it printed %q", id, a.seen)
			}
			a.seen = append(a.seen, line)
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
				a.t.Fatalf("stdout carried a line that is not a JSON-RPC message: %q", line)
			}
			if _, isReply := m["method"]; isReply {
				continue
			}
			if got, _ := json.Marshal(m["id"]); string(got) == id {
				return m
			}
		case <-deadline:
			a.t.Fatalf("no reply to %s; the agent printed %q", id, a.seen)
		}
	}
}

// errorOf returns the code and message (with its data) of an error reply.
func errorOf(t *testing.T, m map[string]any) (int, string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error, got %v", m)
	}
	detail := ""
	if d, ok := e["data"].(map[string]any); ok {
		detail, _ = d["error"].(string)
	}
	if detail == "" {
		b, _ := json.Marshal(e["data"])
		detail = string(b)
	}
	return int(e["code"].(float64)), e["message"].(string) + ": " + detail
}

func TestACPProtocolErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	home := strings.TrimPrefix(h.env[0], "HOME=")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(h.workdir, "file.txt")
	writeFile(t, notDir, "x")
	a := h.rawACP("-m", h.script(`{"turns": [{"text": "hi"}]}`))

	expect := func(id string, code int, mentions string) {
		t.Helper()
		got, msg := errorOf(t, a.reply(id))
		if got != code || !strings.Contains(msg, mentions) {
			t.Fatalf("reply %s: %d %s; want %d mentioning %q", id, got, msg, code, mentions)
		}
	}
	// Before initialize, nothing but initialize is served.
	a.send(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	expect("1", -32600, "initialize first")

	a.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":99,"clientCapabilities":{}}}`)
	init := a.reply("2")["result"].(map[string]any)
	if init["protocolVersion"] != float64(1) {
		t.Fatalf("initialize answered %v; want the one version the agent speaks (1)", init)
	}
	caps, _ := json.Marshal(init["agentCapabilities"])
	for _, want := range []string{`"loadSession":true`, `"embeddedContext":true`, `"http":true`, `"sse":true`, `"list":{}`, `"resume":{}`, `"close":{}`} {
		if !strings.Contains(string(caps), want) {
			t.Errorf("capabilities %s do not say %s", caps, want)
		}
	}
	if strings.Contains(string(caps), "audio") {
		t.Errorf("capabilities %s advertise audio", caps)
	}
	if m, _ := init["authMethods"].([]any); len(m) != 0 {
		t.Errorf("authMethods %v with a model configured", m)
	}

	a.send(`this is not json`)
	expect("null", -32700, "not valid JSON")
	a.send(`[{"jsonrpc":"2.0","id":3,"method":"initialize"}]`)
	expect("null", -32600, "batches")
	a.send(`"a string"`)
	expect("null", -32600, "JSON object")
	a.send(`{"id":4,"method":"session/list"}`)
	expect("4", -32600, `"jsonrpc" must be "2.0"`)
	a.send(`{"jsonrpc":"2.0","id":5,"method":42}`)
	expect("5", -32600, `"method" must be`)
	a.send(`{"jsonrpc":"2.0","id":{"x":1},"method":"session/list"}`)
	expect("null", -32600, "the id must be")
	a.send(`{"jsonrpc":"2.0","id":6}`)
	expect("6", -32600, `needs a "method"`)
	a.send(`{"jsonrpc":"2.0","id":7,"method":"no/such/method","params":{}}`)
	expect("7", -32601, "no/such/method")
	a.send(`{"jsonrpc":"2.0","id":8,"method":"session/new","params":{"cwd":5}}`)
	expect("8", -32602, "cwd")
	a.send(`{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"nosuchsession","prompt":[{"type":"text","text":"hi"}]}}`)
	expect("9", -32002, "nosuchsession")

	cwds := map[string]string{
		"relative":           "relative/dir",
		"does not exist":     filepath.Join(h.workdir, "missing"),
		"is not a directory": notDir,
		"holds credentials":  filepath.Join(home, ".ssh"),
		"data":               h.home,
	}
	n := 100
	for want, cwd := range cwds {
		n++
		params, _ := json.Marshal(map[string]any{"cwd": cwd, "mcpServers": []any{}})
		a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/new","params":%s}`, n, params))
		code, msg := errorOf(t, a.reply(fmt.Sprint(n)))
		if code != -32602 || (!strings.Contains(msg, want) && want != "relative") {
			t.Errorf("cwd %s: %d %s; want invalid params saying it %s", cwd, code, msg, want)
		}
	}

	// A line longer than the limit is refused without ending anything.
	a.send(`{"jsonrpc":"2.0","id":10,"method":"session/list","params":{"pad":"` + strings.Repeat("x", 9<<20) + `"}}`)
	expect("null", -32600, "longer than")

	// After all that the agent still works.
	params, _ := json.Marshal(map[string]any{"cwd": h.workdir, "mcpServers": []any{}})
	a.send(`{"jsonrpc":"2.0","id":11,"method":"session/new","params":` + string(params) + `}`)
	sid := a.reply("11")["result"].(map[string]any)["sessionId"].(string)
	a.send(`{"jsonrpc":"2.0","id":12,"method":"session/set_mode","params":{"sessionId":"` + sid + `","modeId":"yolo"}}`)
	expect("12", -32602, "default, plan, auto-edit")
	a.send(`{"jsonrpc":"2.0","id":13,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[]}}`)
	expect("13", -32602, "empty")
	a.send(`{"jsonrpc":"2.0","id":14,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]}}`)
	expect("14", -32602, "audio")
	a.send(`{"jsonrpc":"2.0","id":15,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hello"}]}}`)
	if r := a.reply("15"); r["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Fatalf("prompt after the errors: %v", r)
	}

	// The end of input ends the agent, cleanly.
	_ = a.in.Close()
	for line := range a.lines {
		a.seen = append(a.seen, line)
		if !json.Valid([]byte(line)) {
			t.Fatalf("stdout carried %q", line)
		}
	}
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("the agent exited with %v at the end of its input", err)
	}
}

// Without a provider key the agent starts, says which variable to set in
// initialize, and refuses sessions with the protocol's auth error naming
// it.
func TestACPWithoutProviderKey(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	a := h.rawACP("-m", "openai/gpt-4o")
	a.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	res := a.reply("1")["result"].(map[string]any)
	methods, _ := json.Marshal(res["authMethods"])
	if !strings.Contains(string(methods), "OPENAI_API_KEY") {
		t.Fatalf("authMethods %s do not name the variable", methods)
	}
	params, _ := json.Marshal(map[string]any{"cwd": h.workdir, "mcpServers": []any{}})
	a.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":` + string(params) + `}`)
	code, msg := errorOf(t, a.reply("2"))
	if code != -32000 || !strings.Contains(msg, "OPENAI_API_KEY") {
		t.Fatalf("session/new without a key: %d %s", code, msg)
	}
	a.send(`{"jsonrpc":"2.0","id":3,"method":"authenticate","params":{"methodId":"env"}}`)
	if code, msg := errorOf(t, a.reply("3")); code != -32000 || !strings.Contains(msg, "OPENAI_API_KEY") {
		t.Fatalf("authenticate without a key: %d %s", code, msg)
	}
}
