package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A worker keeps the wiring of a workdir (its sandbox, skills and MCP
// servers) only while steps use it and for a few idle workdirs after: 12
// sessions in 12 workdirs leave at most 8 of the MCP servers the worker
// started for them running, not all 12 (it used to keep every workdir it
// ever ran a session in, with its servers: 137 MiB after 200 sessions, and
// a process per server per workdir).
func TestWorkerClosesTheWiringsOfIdleWorkdirs(t *testing.T) {
	h := newDurableHarness(t)
	marker := filepath.Join(t.TempDir(), "worker-wiring-marker")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(h.home, "config.toml")
	cfg := readFile(t, cfgPath) + "\n[mcp_servers.srv]\ncommand = \"" + self + "\"\n" +
		"env = { " + envServeMCP + " = \"1\", " + envMCPOut + " = \"" + marker + "\" }\n"
	writeFile(t, cfgPath, cfg)
	root := t.TempDir()
	token := serveSetup(t, h.harness, root)
	worker := h.worker()
	s := h.serve(h.script(stepsScript(t, 1, "0")), "--engine", "temporal")
	const sessions, keptIdle = 12, 8
	planned(t, s, token, root, sessions)

	// The servers the worker started are its descendants (inside the
	// sandbox's PID namespace they are the helper's children) whose
	// environment names the marker.
	servers := func() int {
		n := 0
		for _, pid := range descendants(worker.Process.Pid) {
			if env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err == nil && bytes.Contains(env, []byte(marker)) {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(30 * time.Second)
	n := servers()
	for n > keptIdle && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		n = servers()
	}
	if n > keptIdle {
		t.Fatalf("after %d sessions in %d workdirs the worker still runs %d MCP servers, want at most %d", sessions, sessions, n, keptIdle)
	}
	if n == 0 {
		t.Fatal("the worker runs no MCP server at all: the test does not see what it measures")
	}
}

// descendants lists the processes below pid.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command's name may hold spaces and parentheses: the fields
		// follow the last ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 {
			if pp, err := strconv.Atoi(fields[1]); err == nil {
				parent[p] = pp
			}
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
