package config

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
)

func TestReasoningEffortAndAPI(t *testing.T) {
	home := writeConfig(t, `
[providers.openai]
reasoning_effort = "High"
api = "responses"
[providers.anthropic]
reasoning_effort = "low"
`)
	wd := t.TempDir()
	keys := map[string]string{EnvHome: home, EnvOpenAIKey: "o", EnvAnthropicKey: "a"}
	c, err := Load(Flags{Workdir: wd, Model: "openai/o4-mini"}, env(keys))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve(env(keys))
	if err != nil || r.Effort != llm.EffortHigh || r.Provider.API != "responses" {
		t.Fatalf("openai: %+v, %v", r, err)
	}
	// --effort wins over every provider's reasoning_effort.
	c, err = Load(Flags{Workdir: wd, Model: "anthropic/claude-sonnet-4-5", Effort: "medium"}, env(keys))
	if err != nil {
		t.Fatal(err)
	}
	if r, _ = c.Resolve(env(keys)); r.Effort != llm.EffortMedium {
		t.Fatalf("--effort did not win: %q", r.Effort)
	}
	c.Effort = ""
	if r, _ = c.Resolve(env(keys)); r.Effort != llm.EffortLow {
		t.Fatalf("anthropic's reasoning_effort: %q", r.Effort)
	}
	if _, err := Load(Flags{Workdir: wd, Effort: "max"}, env(keys)); err == nil || !strings.Contains(err.Error(), "--effort") {
		t.Fatalf("--effort max: %v", err)
	}
}

func TestBadProviderSettingsNameTheKey(t *testing.T) {
	for body, want := range map[string]string{
		"[providers.openai]\nreasoning_effort = \"max\"\n": "key providers.openai.reasoning_effort",
		"[providers.openai]\napi = \"grpc\"\n":             "key providers.openai.api",
		"[providers.anthropic]\napi = \"responses\"\n":     "only openai and azure providers",
		"[providers.x]\ntype = \"gcp\"\n":                  "bedrock, vertex, azure",
	} {
		home := writeConfig(t, body)
		_, err := Load(Flags{Workdir: t.TempDir()}, env(map[string]string{EnvHome: home}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config %q: got %v, want %q", body, err, want)
		}
	}
}

// The clouds take their settings from the provider's section, else from
// the variables their own tools use.
func TestResolveClouds(t *testing.T) {
	home := writeConfig(t, `
[providers.work]
type = "bedrock"
region = "eu-west-1"
[providers.az]
type = "azure"
base_url = "https://res.openai.azure.com"
api_version = "2024-10-21"
api = "responses"
`)
	wd := t.TempDir()
	vars := map[string]string{EnvHome: home, EnvAWSDefaultRegion: "us-west-2", EnvVertexProject: "proj-1",
		EnvVertexRegion: "europe-west1", EnvAzureKey: "azkey"}
	load := func(model string) Resolved {
		t.Helper()
		c, err := Load(Flags{Workdir: wd, Model: model}, env(vars))
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Resolve(env(vars))
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		return r
	}
	if r := load("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"); r.Region != "us-west-2" || r.Provider.Type != TypeBedrock {
		t.Errorf("bedrock: %+v", r)
	}
	if r := load("work/anthropic.claude-haiku"); r.Region != "eu-west-1" {
		t.Errorf("the section's region lost: %+v", r)
	}
	if r := load("vertex/claude-sonnet-4-5@20250929"); r.Project != "proj-1" || r.Region != "europe-west1" {
		t.Errorf("vertex: %+v", r)
	}
	delete(vars, EnvVertexRegion)
	if r := load("vertex/claude-sonnet-4-5@20250929"); r.Region != DefaultVertexRegion {
		t.Errorf("vertex's default region: %+v", r)
	}
	if r := load("az/my-deployment"); r.BaseURL != "https://res.openai.azure.com" || r.APIVersion != "2024-10-21" ||
		r.APIKey != "azkey" || r.Provider.API != "responses" {
		t.Errorf("azure: %+v", r)
	}
	// The built-in azure provider needs an endpoint, and says which variable.
	c, err := Load(Flags{Workdir: wd, Model: "azure/dep"}, env(vars))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resolve(env(vars)); !errors.Is(err, ErrNoProvider) || !strings.Contains(err.Error(), EnvAzureEndpoint) {
		t.Errorf("azure without an endpoint: %v", err)
	}
	vars[EnvAzureEndpoint] = "https://other.openai.azure.com"
	if r, err := c.Resolve(env(vars)); err != nil || r.BaseURL != "https://other.openai.azure.com" {
		t.Errorf("azure from %s: %+v, %v", EnvAzureEndpoint, r, err)
	}
}

// The /model picker offers a cloud's models once the cloud is set up.
func TestModelChoicesOfClouds(t *testing.T) {
	wd, home := t.TempDir(), t.TempDir()
	c, err := Load(Flags{Workdir: wd}, env(map[string]string{EnvHome: home, EnvOpenAIKey: "k"}))
	if err != nil {
		t.Fatal(err)
	}
	got := c.ModelChoices(env(map[string]string{EnvOpenAIKey: "k"}))
	for _, m := range got {
		if strings.HasPrefix(m, "bedrock/") || strings.HasPrefix(m, "vertex/") {
			t.Fatalf("a cloud that is not set up is offered: %v", got)
		}
	}
	got = c.ModelChoices(env(map[string]string{EnvOpenAIKey: "k", EnvAWSRegion: "us-east-1", EnvGoogleProject: "p"}))
	if !slices.Contains(got, "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0") || !slices.Contains(got, "vertex/claude-sonnet-4-5@20250929") {
		t.Fatalf("the clouds' models are missing: %v", got)
	}
}

// Every cloud credential variable is hidden from children, the ones whose
// names look harmless included.
func TestCloudSecretsCoverHarmlessNames(t *testing.T) {
	for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_BEARER_TOKEN_BEDROCK", "GOOGLE_APPLICATION_CREDENTIALS",
		"AZURE_CLIENT_CERTIFICATE_PATH", "AZURE_USERNAME", "AZURE_PASSWORD", EnvAzureKey} {
		if !slices.Contains(CloudSecrets, name) {
			t.Errorf("%s is not in CloudSecrets", name)
		}
	}
}
