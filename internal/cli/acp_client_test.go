package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The ACP end-to-end tests drive `harness9 acp` with the official
// TypeScript SDK's client (testdata/acp/client.mjs on
// @agentclientprotocol/sdk), which .ci/run installs with npm.

// acpSDKInstall is how to install the client's SDK.
const acpSDKInstall = "npm install -g @agentclientprotocol/sdk@2.4.0"

// acpClientScript returns client.mjs copied into a directory whose
// node_modules holds the SDK, so that node can import it; the test is
// skipped (failed in CI) when node or the SDK is missing.
func acpClientScript(t *testing.T) string {
	t.Helper()
	missing := func(what string) string {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; install it with: %s", what, acpSDKInstall)
		}
		t.Skipf("%s; install it with: %s", what, acpSDKInstall)
		return ""
	}
	if _, err := exec.LookPath("node"); err != nil {
		return missing("node is not on PATH")
	}
	out, err := exec.Command("npm", "root", "-g").Output()
	if err != nil {
		return missing("npm is not on PATH")
	}
	scope := filepath.Join(strings.TrimSpace(string(out)), "@agentclientprotocol")
	if _, err := os.Stat(filepath.Join(scope, "sdk", "package.json")); err != nil {
		return missing("@agentclientprotocol/sdk is not installed")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(scope, filepath.Join(dir, "node_modules", "@agentclientprotocol")); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "acp", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "client.mjs")
	if err := os.WriteFile(script, src, 0o600); err != nil {
		t.Fatal(err)
	}
	return script
}

// acpLog is what the client saw.
type acpLog struct {
	Updates     []acpNotification `json:"updates"`
	Permissions []acpPermission   `json:"permissions"`
	FS          []struct {
		Op, Path, Content string
	} `json:"fs"`
	Steps    []acpStep         `json:"steps"`
	Problems []string          `json:"problems"`
	Sessions map[string]string `json:"sessions"`
	ExitCode int               `json:"exitCode"`
}

type acpNotification struct {
	SessionID string         `json:"sessionId"`
	Update    map[string]any `json:"update"`
}

type acpPermission struct {
	SessionID string `json:"sessionId"`
	ToolCall  struct {
		ToolCallID string           `json:"toolCallId"`
		Title      string           `json:"title"`
		Kind       string           `json:"kind"`
		Content    []map[string]any `json:"content"`
	} `json:"toolCall"`
	Options []struct {
		OptionID string `json:"optionId"`
		Name     string `json:"name"`
		Kind     string `json:"kind"`
	} `json:"options"`
}

type acpStep struct {
	Op     string         `json:"op"`
	Result map[string]any `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data"`
	} `json:"error"`
	UpdatesFrom int `json:"updatesFrom"`
	UpdatesTo   int `json:"updatesTo"`
}

// acpRun is one client run: the agent's extra arguments, the steps, the
// answers to permission requests, and the editor the client plays.
type acpRun struct {
	args    []string
	steps   []map[string]any
	answers []string
	fs      map[string]bool   // the client's fs capability; nil offers none
	buffers map[string]string // path → unsaved text the editor returns
}

// acp runs the client against `harness9 acp` with the harness's
// environment and returns what it saw; a step that failed is in the log.
func (h *harness) acp(r acpRun) acpLog {
	h.t.Helper()
	script := acpClientScript(h.t)
	agentCmd, _ := json.Marshal(append([]string{h.binary(), "acp"}, r.args...))
	steps, _ := json.Marshal(r.steps)
	answers, _ := json.Marshal(append([]string{}, r.answers...))
	buffers, _ := json.Marshal(r.buffers)
	fsCaps, _ := json.Marshal(r.fs)
	cmd := exec.Command("node", script)
	cmd.Env = append(append([]string{}, h.env...), "ACP_AGENT="+string(agentCmd), "ACP_STEPS="+string(steps),
		"ACP_ANSWERS="+string(answers), "ACP_BUFFERS="+string(buffers), "ACP_FS="+string(fsCaps))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		h.t.Fatalf("the ACP client failed: %v\nstderr:\n%s\nstdout:\n%s", err, errb.String(), out.String())
	}
	var log acpLog
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		h.t.Fatalf("the ACP client's log: %v\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	if len(log.Problems) > 0 || log.ExitCode != 0 {
		h.t.Fatalf("the ACP client saw problems %q; the agent exited %d\nstderr:\n%s", log.Problems, log.ExitCode, errb.String())
	}
	return log
}

// opening is rest after the steps every session starts with: initialize,
// then session/new in cwd as session "s".
func opening(cwd string, rest []map[string]any) []map[string]any {
	return append([]map[string]any{{"op": "initialize"}, {"op": "new", "cwd": cwd, "as": "s"}}, rest...)
}

// step returns the result of the n-th step, failing the test if it
// failed.
func (l acpLog) step(t *testing.T, n int) map[string]any {
	t.Helper()
	s := l.Steps[n]
	if s.Error != nil {
		t.Fatalf("step %d (%s) failed: %d %s %v", n, s.Op, s.Error.Code, s.Error.Message, s.Error.Data)
	}
	return s.Result
}

// updatesOf returns the updates of one kind ("tool_call", "plan" ...) a
// step received.
func (l acpLog) updatesOf(n int, kind string) []map[string]any {
	var out []map[string]any
	s := l.Steps[n]
	for _, u := range l.Updates[s.UpdatesFrom:s.UpdatesTo] {
		if u.Update["sessionUpdate"] == kind {
			out = append(out, u.Update)
		}
	}
	return out
}

// text joins the text of a step's updates of one kind (agent_message_chunk
// ...).
func (l acpLog) text(n int, kind string) string {
	var b strings.Builder
	for _, u := range l.updatesOf(n, kind) {
		if c, ok := u["content"].(map[string]any); ok {
			s, _ := c["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// toolCall returns the tool_call update of a step whose title starts
// with prefix, and every tool_call_update of that call.
func (l acpLog) toolCall(t *testing.T, n int, prefix string) (call map[string]any, updates []map[string]any) {
	t.Helper()
	for _, c := range l.updatesOf(n, "tool_call") {
		if title, _ := c["title"].(string); strings.HasPrefix(title, prefix) {
			call = c
		}
	}
	if call == nil {
		t.Fatalf("step %d has no tool call %q; its calls: %v", n, prefix, l.updatesOf(n, "tool_call"))
	}
	for _, u := range l.updatesOf(n, "tool_call_update") {
		if u["toolCallId"] == call["toolCallId"] {
			updates = append(updates, u)
		}
	}
	return call, updates
}

// lastStatus is a call's final status.
func lastStatus(updates []map[string]any) string {
	status := ""
	for _, u := range updates {
		if s, ok := u["status"].(string); ok {
			status = s
		}
	}
	return status
}

// diffOf returns a content list's diff item, or nil.
func diffOf(content any) map[string]any {
	list, _ := content.([]any)
	for _, c := range list {
		if m, ok := c.(map[string]any); ok && m["type"] == "diff" {
			return m
		}
	}
	return nil
}

func stopReason(t *testing.T, l acpLog, n int) string {
	t.Helper()
	s, _ := l.step(t, n)["stopReason"].(string)
	return s
}
