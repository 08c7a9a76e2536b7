package cli_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harness9/harness9/internal/memory"
)

// Memory lines reach the system prompt of the request on the wire: the
// project's CLAUDE.md (no AGENTS.md here) and a note added to the user's
// $HARNESS9_HOME/AGENTS.md, project first.
func TestMemoryLinesReachTheSystemPrompt(t *testing.T) {
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.workdir, "CLAUDE.md"), []byte("- project rule: run make lint\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// What the TUI's "# always use tabs" does once the user picked their own file.
	if _, err := memory.New(h.workdir, h.home).Add(memory.User, "# always use tabs"); err != nil {
		t.Fatal(err)
	}
	h.env = append(h.env, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.URL+"/v1")
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/gpt-test", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if len(bodies) != 1 {
		t.Fatalf("%d requests", len(bodies))
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(bodies[0], &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) == 0 || (req.Messages[0].Role != "system" && req.Messages[0].Role != "developer") {
		t.Fatalf("no system message: %s", bodies[0])
	}
	sys := fmt.Sprint(req.Messages[0].Content)
	p, u := strings.Index(sys, "- project rule: run make lint"), strings.Index(sys, "- always use tabs")
	if p < 0 || u < 0 || p > u {
		t.Fatalf("system prompt lacks the memory lines in order (project %d, user %d):\n%s", p, u, sys)
	}
	if !strings.Contains(sys, "(CLAUDE.md)") {
		t.Errorf("the system prompt does not say which file the project notes came from")
	}
}
