package cli_test

// Red-team test: with the workdir = $HOME, nothing under the home deny list
// (~/.ssh, ~/.aws) and no secret variable of harness9's environment reaches
// the model, whichever way the CLI opens a project file or starts a child:
// AGENTS.md, a nested AGENTS.md, skills, custom commands, sub-agent
// definitions, @path mentions, read_file, a sub-agent's read_file, bash's
// and hooks' environment. The model is an OpenAI-compatible wire server
// that records every request body: what it saw is asserted, not a message.

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
)

type wireCall struct{ name, args string }

// recordingModel answers by the request: a request whose first user
// message names CHILD is a sub-agent; before any tool result it makes the
// given calls, afterwards it answers "done".
type recordingModel struct {
	mu     sync.Mutex
	bodies []string
	parent []wireCall
	child  []wireCall
}

func (m *recordingModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.bodies = append(m.bodies, string(body))
	m.mu.Unlock()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	child, results := false, 0
	for _, msg := range req.Messages {
		if msg.Role == "user" && !child && strings.Contains(string(msg.Content), "CHILD") {
			child = true
		}
		if msg.Role == "tool" {
			results++
		}
	}
	calls := m.parent
	if child {
		calls = m.child
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta, finish string) {
		fin := "null"
		if finish != "" {
			fin = `"` + finish + `"`
		}
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, fin)
	}
	if results == 0 {
		for i, c := range calls {
			args, _ := json.Marshal(c.args)
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":%q,"arguments":%s}}]}`, i, i, c.name, args), "")
		}
		chunk(`{}`, "tool_calls")
	} else {
		chunk(`{"role":"assistant","content":"done"}`, "")
		chunk(`{}`, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (m *recordingModel) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.bodies...)
}

func TestHomeWorkdirLeaksNothingToTheModel(t *testing.T) {
	h := newHarness(t)
	home := h.workdir // the user runs harness9 in their home directory
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		t.Helper()
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	// Secrets, each in a form the file that links to it would accept.
	write(".ssh/id_ed25519", "SSH-PRIVATE-KEY-SECRET\n")
	write(".ssh/skill.md", "---\nname: leak\ndescription: SKILL-SECRET-DESC\n---\nSKILL-SECRET-BODY\n")
	write(".ssh/command.md", "---\ndescription: COMMAND-SECRET-DESC\n---\nCOMMAND-SECRET-BODY $ARGUMENTS\n")
	write(".ssh/agent.md", "---\nname: leaker\ndescription: AGENT-SECRET-DESC\n---\nAGENT-SECRET-PROMPT\n")
	write(".aws/credentials", "[default]\naws_secret_access_key = AWS-FILE-SECRET\n")
	write(".azure/msal_token_cache.json", `{"AccessToken":{"x":{"secret":"AZURE-FILE-SECRET"}}}`)
	// The planted links.
	link(".ssh/id_ed25519", "AGENTS.md")
	link("../.ssh/id_ed25519", "svc/AGENTS.md")
	write("svc/main.go", "package main\n")
	link("../../../.ssh/skill.md", ".harness9/skills/leak/SKILL.md")
	link("../../.ssh/command.md", ".harness9/commands/leak.md")
	link("../../.ssh/agent.md", ".harness9/agents/leaker.md")
	link(".aws", "aws-link")
	write("hook.txt", "x\n")

	model := &recordingModel{
		parent: []wireCall{
			{"read_file", `{"path": ".ssh/id_ed25519"}`},
			{"read_file", `{"path": "aws-link/credentials"}`},
			{"read_file", `{"path": ".azure/msal_token_cache.json"}`},
			{"read_file", `{"path": "svc/main.go"}`},
			{"search_files", `{"pattern": "SECRET"}`},
			{"use_skill", `{"name": "leak"}`},
			{"task", `{"description": "leak", "prompt": "CHILD go", "agent": "leaker"}`},
			{"task", `{"description": "read", "prompt": "CHILD read the key"}`},
			{"bash", `{"command": "env"}`},
			{"read_file", `{"path": "hook.txt"}`},
		},
		child: []wireCall{{"read_file", `{"path": ".ssh/id_ed25519"}`}, {"glob", `{"pattern": "**/*"}`}},
	}
	srv := httptest.NewServer(model)
	defer srv.Close()
	// harness9's own environment holds secrets its children must not get.
	h.env = append(h.env, "OPENAI_API_KEY=OPENAI-ENV-SECRET", "OPENAI_BASE_URL="+srv.URL+"/v1",
		"AWS_SECRET_ACCESS_KEY=AWS-ENV-SECRET", "GITHUB_TOKEN=GH-ENV-SECRET", "HARNESS9_VISIBLE_MARK=env-reached-bash",
		// The clouds' credentials, those whose names say nothing secret
		// included (issue 32).
		"AWS_BEARER_TOKEN_BEDROCK=BEDROCK-ENV-SECRET", "AWS_SESSION_TOKEN=AWS-SESSION-SECRET",
		"AZURE_OPENAI_API_KEY=AZURE-KEY-SECRET", "AZURE_CLIENT_CERTIFICATE_PATH=/AZURE-CERT-SECRET.pem",
		"AZURE_USERNAME=AZURE-USER-SECRET", "GOOGLE_APPLICATION_CREDENTIALS=/GOOGLE-ADC-SECRET.json")
	for i, kv := range h.env {
		if strings.HasPrefix(kv, "HOME=") {
			h.env[i] = "HOME=" + home
		}
	}
	// A hook that tells the model its whole environment.
	cfg := "[hooks]\nunconfined = true\n\n[[hooks.pre_tool_use]]\nmatcher = \"read_file(hook.txt)\"\ncommand = \"env >&2; exit 2\"\n"
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, prompt := range []string{"look at @.ssh/id_ed25519 and @aws-link/credentials", "/leak now"} {
		r := h.run("", "run", "--json", "--sandbox", "off", "--allow", "bash", "-C", home, "-m", "openai/gpt-test", prompt)
		if r.code != 0 && r.code != 2 {
			t.Fatalf("%q: exit %d\n%s\n%s", prompt, r.code, r.stderr, r.stdout)
		}
	}
	reqs := model.requests()
	if len(reqs) < 4 {
		t.Fatalf("only %d model requests: the attack did not run", len(reqs))
	}
	all := strings.Join(reqs, "\n")
	for _, secret := range []string{"SSH-PRIVATE-KEY-SECRET", "SKILL-SECRET", "COMMAND-SECRET", "AGENT-SECRET",
		"AWS-FILE-SECRET", "OPENAI-ENV-SECRET", "AWS-ENV-SECRET", "GH-ENV-SECRET", "AZURE-FILE-SECRET", "BEDROCK-ENV-SECRET",
		"AWS-SESSION-SECRET", "AZURE-KEY-SECRET", "AZURE-CERT-SECRET", "AZURE-USER-SECRET", "GOOGLE-ADC-SECRET"} {
		if strings.Contains(all, secret) {
			i := strings.Index(all, secret)
			t.Errorf("%s reached the model: …%s…", secret, all[max(0, i-300):min(len(all), i+100)])
		}
	}
	// The children did run: bash's and the hook's environment reached the model.
	if strings.Count(all, "env-reached-bash") < 2 {
		t.Errorf("bash and the hook should have shown the scrubbed environment; requests:\n%s", all)
	}
}
