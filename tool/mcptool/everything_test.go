package mcptool

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harness9/harness9/tool"
)

// The reference server nobody here wrote. CI installs it with
//
//	npm install -g @modelcontextprotocol/server-everything
//
// which provides the mcp-server-everything binary and lets
// `npx -y @modelcontextprotocol/server-everything` start without a download.
const everythingPkg = "@modelcontextprotocol/server-everything"

// everythingCommand returns how to start the reference server, or skips.
func everythingCommand(t *testing.T) ServerConfig {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the external MCP reference server")
	}
	installed := osexec.Command("npm", "ls", "-g", "--depth=0", everythingPkg).Run() == nil
	if _, err := osexec.LookPath("npx"); err == nil && installed {
		return ServerConfig{Command: "npx", Args: []string{"-y", everythingPkg, "stdio"}}
	}
	if path, err := osexec.LookPath("mcp-server-everything"); err == nil {
		return ServerConfig{Command: path, Args: []string{"stdio"}}
	}
	t.Skipf("MCP reference server not available: run `npm install -g %s` (needs node and npx)", everythingPkg)
	return ServerConfig{}
}

func TestEverythingServerStdio(t *testing.T) {
	t.Parallel()
	cfg := everythingCommand(t)
	m, err := Connect(context.Background(), map[string]ServerConfig{"everything": cfg}, WithTimeout(60*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	checkEverything(t, m)
}

func TestEverythingServerStreamableHTTP(t *testing.T) {
	t.Parallel()
	cfg := everythingCommand(t)
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := append(cfg.Args[:len(cfg.Args)-1:len(cfg.Args)-1], "streamableHttp")
	cmd := osexec.CommandContext(ctx, cfg.Command, args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	ownProcessGroup(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(listening)
				break
			}
		}
		for sc.Scan() { // keep draining so the server never blocks on stderr
		}
	}()
	select {
	case <-listening:
	case <-time.After(60 * time.Second):
		t.Fatal("the HTTP reference server did not start")
	}

	m, err := Connect(context.Background(), map[string]ServerConfig{
		"everything": {URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), Headers: map[string]string{"X-Test": "1"}},
	}, WithTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if st := m.Status(); st[0].Transport != TransportHTTP {
		t.Errorf("transport = %s", st[0].Transport)
	}
	checkEverything(t, m)
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

func checkEverything(t *testing.T, m *Manager) {
	t.Helper()
	st := m.Status()
	if len(st) != 1 || !st[0].Connected {
		t.Fatalf("status = %+v", st)
	}
	t.Logf("reference server tools: %s", strings.Join(st[0].Tools, ", "))
	tools := toolsByName(m)
	for _, name := range []string{"mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-structured-content", "mcp__everything__toggle-simulated-logging"} {
		if tools[name] == nil {
			t.Fatalf("tool %s missing", name)
		}
	}
	if !isReadOnly(tools["mcp__everything__echo"]) || isReadOnly(tools["mcp__everything__toggle-simulated-logging"]) {
		t.Error("readOnlyHint not mapped: echo should be read-only, toggle-simulated-logging not")
	}
	if res := run(t, tools["mcp__everything__echo"], `{"message":"hello"}`); res.IsError || res.Output != "Echo: hello" {
		t.Errorf("echo = %+v", res)
	}
	if res := run(t, tools["mcp__everything__get-sum"], `{"a":2,"b":40}`); res.IsError || !strings.Contains(res.Output, "42") {
		t.Errorf("get-sum = %+v", res)
	}
	res := run(t, tools["mcp__everything__get-structured-content"], `{"location":"Chicago"}`)
	if res.IsError || !strings.Contains(res.Output, `"temperature":36`) || strings.Count(res.Output, "temperature") != 1 {
		t.Errorf("get-structured-content = %+v", res)
	}
	if res := run(t, tools["mcp__everything__get-sum"], `{"a":"two"}`); !res.IsError {
		t.Errorf("invalid arguments accepted: %+v", res)
	}
}

func isReadOnly(t interface{ Name() string }) bool {
	ro, ok := t.(interface{ ReadOnly() bool })
	return ok && ro.ReadOnly()
}

// The reference server's progress notifications reach the call's output,
// and its roots tool sees the roots offered.
func TestEverythingServerProgressAndRoots(t *testing.T) {
	t.Parallel()
	cfg := everythingCommand(t)
	dir := t.TempDir()
	m, err := Connect(context.Background(), map[string]ServerConfig{"everything": cfg}, WithTimeout(60*time.Second), WithRoots(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if st := m.Status(); !st[0].Connected {
		t.Fatalf("status %+v", st)
	}
	var mu sync.Mutex
	var progress strings.Builder
	ctx := tool.ContextWithProgress(context.Background(), func(s string) { mu.Lock(); progress.WriteString(s); mu.Unlock() })
	res, err := toolsByName(m)["mcp__everything__trigger-long-running-operation"].Execute(ctx, json.RawMessage(`{"duration": 0.2, "steps": 2}`))
	if err != nil || res.IsError {
		t.Fatalf("long-running operation: %+v %v", res, err)
	}
	waitFor(t, "both progress lines", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(progress.String(), "[1/2]") && strings.Contains(progress.String(), "[2/2]")
	})
	waitFor(t, "the roots tool", func() bool { return toolsByName(m)["mcp__everything__get-roots-list"] != nil })
	if res := run(t, toolsByName(m)["mcp__everything__get-roots-list"], `{}`); !strings.Contains(res.Output, "file://"+dir) {
		t.Errorf("roots the server knows: %+v", res)
	}
}
