package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harness9/harness9/sandbox"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestDefaultsAndPrecedence(t *testing.T) {
	home := writeConfig(t, `
model = "openai/gpt-4o"
max_turns = 20
[tools]
timeout = "90s"
[planning]
evidence_gate = false
stall_threshold = 5
[providers.ollama]
base_url = "http://127.0.0.1:11434/v1"
context_window = 32768
`)
	wd := t.TempDir()
	c, err := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "openai/gpt-4o" || c.MaxTurns != 20 || c.ToolTimeout != 90*time.Second || c.EvidenceGate || c.StallThreshold != 5 {
		t.Fatalf("file not applied: %+v", c)
	}
	if p := c.Providers["ollama"]; p.Type != TypeOpenAI || p.ContextWindow != 32768 {
		t.Fatalf("ollama provider = %+v", p)
	}
	c, err = Load(Flags{Workdir: wd, Model: "anthropic/claude-x", MaxTurns: 7}, env(map[string]string{EnvHome: home, EnvModel: "openai/from-env"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "anthropic/claude-x" || c.MaxTurns != 7 {
		t.Fatalf("flags did not win: %+v", c)
	}
	c, _ = Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: home, EnvModel: "openai/from-env"}))
	if c.Model != "openai/from-env" {
		t.Fatalf("env did not beat the file: %q", c.Model)
	}
}

func TestBadConfigNamesFileAndKey(t *testing.T) {
	for body, want := range map[string]string{
		"[tools]\ntimeout = \"soon\"\n":              "key tools.timeout",
		"colour = 3\n":                               "unknown key",
		"[providers.x]\ntype = \"grpc\"\n":           "key providers.x.type",
		"max_turns = \"ten\"\n":                      "max_turns",
		"[mcp_servers.a]\n":                          "key mcp_servers.a",
		"[planning]\nstall_threshold = -1\n":         "key planning",
		"model = \"openai/gpt\"\n[[broken\n":         "config.toml:",
		"[providers.\"a/b\"]\nbase_url = \"http\"\n": "may not contain '/'",
	} {
		home := writeConfig(t, body)
		_, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "config.toml") {
			t.Errorf("config %q: got %v, want an error naming config.toml and %q", body, err, want)
		}
	}
}

// A value of the wrong type is reported in the file's terms (the key and
// the kind of value it takes), never with the Go types it decodes into.
func TestWrongTypeIsWordedForAPerson(t *testing.T) {
	for body, want := range map[string]string{
		"max_turns = \"ten\"\n":                     "key max_turns must be an integer, not a TOML string",
		"[tools]\ntimeout = 5\n":                    "key tools.timeout must be a string (in quotes), not a TOML integer",
		"[planning]\nevidence_gate = \"yes\"\n":     "key planning.evidence_gate must be true or false, not a TOML string",
		"[compaction]\nthreshold = \"x\"\n":         "key compaction.threshold must be a number, not a TOML string",
		"[mcp_servers.x]\nargs = \"a b\"\n":         "key mcp_servers.x.args must be an array of strings",
		"[providers.x]\ncontext_window = \"big\"\n": "key providers.x.context_window must be an integer",
		"providers = 3\n":                           "key providers must be a table, not a TOML integer",
		"model = \n":                                "config.toml:1:9: unexpected character",
	} {
		home := writeConfig(t, body)
		_, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %q: got %v, want %q", body, err, want)
			continue
		}
		for _, leak := range []string{"struct", "of type", "(key )", "toml: "} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("config %q: the error shows %q: %v", body, leak, err)
			}
		}
	}
}

func TestResolveSaysWhichEnvVar(t *testing.T) {
	wd := t.TempDir()
	c, err := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Resolve(env(nil))
	if !errors.Is(err, ErrNoProvider) || !strings.Contains(err.Error(), EnvOpenAIKey) || !strings.Contains(err.Error(), EnvAnthropicKey) {
		t.Fatalf("got %v", err)
	}
	c.Model = "anthropic/claude-sonnet-4-5"
	if _, err = c.Resolve(env(nil)); err == nil || !strings.Contains(err.Error(), EnvAnthropicKey) {
		t.Fatalf("got %v", err)
	}
	r, err := c.Resolve(env(map[string]string{EnvAnthropicKey: "k", EnvAnthropicBaseURL: "http://127.0.0.1:1"}))
	if err != nil || r.APIKey != "k" || r.BaseURL != "http://127.0.0.1:1" || r.Model != "claude-sonnet-4-5" {
		t.Fatalf("got %+v, %v", r, err)
	}
	c.Model = "nope/x"
	if _, err = c.Resolve(env(nil)); err == nil || !strings.Contains(err.Error(), `unknown provider "nope"`) {
		t.Fatalf("got %v", err)
	}
	c.Model = "gpt-4o"
	if _, err = c.Resolve(env(nil)); err == nil || !strings.Contains(err.Error(), "PROVIDER/MODEL") {
		t.Fatalf("got %v", err)
	}
}

func TestDefaultModelFromKeys(t *testing.T) {
	wd, home := t.TempDir(), t.TempDir()
	c, _ := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: home, EnvAnthropicKey: "a"}))
	if c.Model != DefaultAnthropicModel {
		t.Fatalf("model = %q", c.Model)
	}
	c, _ = Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: home, EnvOpenAIKey: "o"}))
	if c.Model != DefaultOpenAIModel {
		t.Fatalf("model = %q", c.Model)
	}
}

func TestWorkdirMustExist(t *testing.T) {
	_, err := Load(Flags{Workdir: filepath.Join(t.TempDir(), "missing")}, env(map[string]string{EnvHome: t.TempDir()}))
	if err == nil || !strings.Contains(err.Error(), "-C/--workdir") {
		t.Fatalf("got %v", err)
	}
}

func TestRetryAndCompactionSections(t *testing.T) {
	home := writeConfig(t, "[retry]\nmax_retries = 0\nmax_wait = \"2s\"\n[compaction]\nthreshold = 0.6\nkeep_recent = 4\n")
	c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxRetries != -1 || c.MaxRetryWait != 2*time.Second || c.CompactThreshold != 0.6 || c.KeepRecent != 4 {
		t.Fatalf("sections not applied: retries %d wait %s threshold %v keep %d", c.MaxRetries, c.MaxRetryWait, c.CompactThreshold, c.KeepRecent)
	}
	c, _ = Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: t.TempDir()}))
	if c.MaxRetries != 0 || c.CompactThreshold != 0.8 || c.KeepRecent != 10 {
		t.Fatalf("defaults: %+v", c)
	}
	for body, key := range map[string]string{
		"[retry]\nmax_retries = -2\n":      "retry.max_retries",
		"[retry]\nmax_wait = \"later\"\n":  "retry.max_wait",
		"[compaction]\nthreshold = 1.5\n":  "compaction.threshold",
		"[compaction]\nkeep_recent = -1\n": "compaction.keep_recent",
	} {
		_, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, body)}))
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: got %v, want an error naming %s", body, err, key)
		}
	}
}

func TestModelChoicesAndPricing(t *testing.T) {
	home := writeConfig(t, "model = \"ollama/qwen3\"\n[providers.ollama]\nbase_url = \"http://localhost:11434/v1\"\nmodels = [\"qwen3\", \"llama3.3\"]\n"+
		"[providers.openai]\ncontext_window = 1000\n[pricing.\"openai/gpt-4.1\"]\ninput = 2.0\noutput = 8.0\n")
	c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home, EnvOpenAIKey: "k"}))
	if err != nil {
		t.Fatal(err)
	}
	got := c.ModelChoices(env(map[string]string{EnvOpenAIKey: "k"}))
	if len(got) < 3 || got[0] != "ollama/qwen3" || !slices.Contains(got, "ollama/llama3.3") || !slices.Contains(got, "openai/gpt-4.1") {
		t.Errorf("choices %q", got)
	}
	for _, m := range got {
		if strings.HasPrefix(m, "anthropic/") {
			t.Errorf("offered %s without its key", m)
		}
	}
	if p, ok := c.PriceOf("openai/gpt-4.1"); !ok || p.Input != 2 || p.Output != 8 {
		t.Errorf("price %+v %v", p, ok)
	}
	if _, ok := c.PriceOf("openai/unknown"); ok {
		t.Error("a price for an unpriced model")
	}
	if _, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, "[pricing.x]\ninput = -1\n")})); err == nil {
		t.Error("a negative price was accepted")
	}
}

// [sandbox] limits: defaults from the sandbox package, each settable, 0 for
// none, nonsense refused with the key named.
func TestSandboxLimits(t *testing.T) {
	c, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, "")}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Sandbox.Limits != sandbox.DefaultLimits() {
		t.Errorf("default limits %+v, want %+v", c.Sandbox.Limits, sandbox.DefaultLimits())
	}
	home := writeConfig(t, "[sandbox]\nmax_processes = 512\nmax_file_mb = 100\nmax_cpu = \"0\"\n")
	c, err = Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (sandbox.Limits{Processes: 512, FileSize: 100 << 20}); c.Sandbox.Limits != want {
		t.Errorf("limits %+v, want %+v", c.Sandbox.Limits, want)
	}
	for body, key := range map[string]string{
		"[sandbox]\nmax_processes = -1\n": "sandbox.max_processes",
		"[sandbox]\nmax_file_mb = -5\n":   "sandbox.max_file_mb",
		"[sandbox]\nmax_cpu = \"soon\"\n": "sandbox.max_cpu",
	} {
		_, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: writeConfig(t, body)}))
		if err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: got %v, want an error naming %s", body, err, key)
		}
	}
}
