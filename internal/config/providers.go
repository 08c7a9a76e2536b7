package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/harness9/harness9/llm"
)

// Wire protocols a provider can speak, and the clouds that host them.
const (
	TypeOpenAI    = "openai"
	TypeAnthropic = "anthropic"
	TypeScripted  = "scripted"
	// TypeBedrock is Claude on Amazon Bedrock: the AWS credential chain
	// and region.
	TypeBedrock = "bedrock"
	// TypeVertex is Claude on Google Vertex AI: application default
	// credentials, a project and a region.
	TypeVertex = "vertex"
	// TypeAzure is OpenAI's models on Azure OpenAI: a resource endpoint,
	// a key or a Microsoft Entra ID login, an API version.
	TypeAzure = "azure"
)

// The clouds' environment variables: those harness9 reads itself. The
// SDKs read their own too (AWS_PROFILE, AWS_ACCESS_KEY_ID …,
// GOOGLE_APPLICATION_CREDENTIALS, AZURE_CLIENT_ID …; docs/providers.md).
const (
	EnvAWSRegion        = "AWS_REGION"
	EnvAWSDefaultRegion = "AWS_DEFAULT_REGION"
	EnvBedrockBaseURL   = "ANTHROPIC_BEDROCK_BASE_URL"
	EnvVertexProject    = "ANTHROPIC_VERTEX_PROJECT_ID"
	EnvGoogleProject    = "GOOGLE_CLOUD_PROJECT"
	EnvVertexRegion     = "CLOUD_ML_REGION"
	EnvVertexBaseURL    = "ANTHROPIC_VERTEX_BASE_URL"
	EnvAzureEndpoint    = "AZURE_OPENAI_ENDPOINT"
	EnvAzureKey         = "AZURE_OPENAI_API_KEY"
	EnvAzureAPIVersion  = "OPENAI_API_VERSION"
	// DefaultVertexRegion is the Vertex AI region used when none is set:
	// the one where every Claude model is served.
	DefaultVertexRegion = "us-east5"
)

// CloudSecrets are the clouds' credential variables, kept from every
// process harness9 starts (bash, hooks, MCP servers) like the providers'
// keys, whatever their names say: the names that do not contain KEY,
// SECRET, TOKEN or CREDENTIAL are here for that.
var CloudSecrets = []string{
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK",
	"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
	"AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
	"GOOGLE_APPLICATION_CREDENTIALS", "CLOUDSDK_AUTH_ACCESS_TOKEN", "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",
	EnvAzureKey, "AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PATH", "AZURE_CLIENT_CERTIFICATE_PASSWORD",
	"AZURE_FEDERATED_TOKEN_FILE", "AZURE_USERNAME", "AZURE_PASSWORD",
}

// Provider is one configured model provider.
type Provider struct {
	// Type is the wire protocol or cloud: "openai" (Chat Completions or
	// Responses), "anthropic", "bedrock", "vertex" or "azure".
	Type string `toml:"type"`
	// BaseURL overrides the protocol's default endpoint; for azure it is
	// the resource's endpoint.
	BaseURL string `toml:"base_url"`
	// APIKeyEnv names the environment variable holding the key. Keys are
	// never written in config.toml.
	APIKeyEnv string `toml:"api_key_env"`
	// ContextWindow, in tokens, for this provider's models (0 = built-in table).
	ContextWindow int `toml:"context_window"`
	// Models are offered by the TUI's /model picker (as PROVIDER/MODEL).
	Models []string `toml:"models"`
	// Vision says whether this provider's models accept images; nil means
	// the built-in table (llm.SupportsVision) decides per model.
	Vision *bool `toml:"vision"`
	// API is the OpenAI wire of an openai or azure provider: "chat",
	// "responses", or "auto" (the default: Responses for the models
	// served only there).
	API string `toml:"api"`
	// ReasoningEffort is the effort asked of reasoning models: "low",
	// "medium" or "high" ("" leaves it to the provider). --effort and the
	// TUI's /effort override it.
	ReasoningEffort string `toml:"reasoning_effort"`
	// Region is the cloud region (bedrock, vertex).
	Region string `toml:"region"`
	// Project is the Google Cloud project (vertex).
	Project string `toml:"project"`
	// APIVersion is the Azure OpenAI API version (azure).
	APIVersion string `toml:"api_version"`
}

// scriptedVision: the scripted provider accepts images (it records them).
var scriptedVision = true

func builtinProviders() map[string]Provider {
	return map[string]Provider{
		TypeOpenAI:    {Type: TypeOpenAI, APIKeyEnv: EnvOpenAIKey, Models: []string{"gpt-4.1", "gpt-4.1-mini", "o4-mini", "gpt-5"}},
		TypeAnthropic: {Type: TypeAnthropic, APIKeyEnv: EnvAnthropicKey, Models: []string{"claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"}},
		TypeBedrock: {Type: TypeBedrock, Models: []string{"us.anthropic.claude-sonnet-4-5-20250929-v1:0",
			"us.anthropic.claude-opus-4-1-20250805-v1:0", "us.anthropic.claude-haiku-4-5-20251001-v1:0"}},
		TypeVertex: {Type: TypeVertex, Models: []string{"claude-sonnet-4-5@20250929", "claude-opus-4-1@20250805", "claude-haiku-4-5@20251001"}},
		// Azure's model names are the resource's deployment names.
		TypeAzure: {Type: TypeAzure, APIKeyEnv: EnvAzureKey},
		// The scripted provider records whatever it is sent, images too.
		TypeScripted: {Type: TypeScripted, Vision: &scriptedVision},
	}
}

// providerTypes are the types a [providers.X] section may name.
var providerTypes = []string{TypeOpenAI, TypeAnthropic, TypeBedrock, TypeVertex, TypeAzure}

// applyProviders merges the [providers.X] sections over the built-in
// providers.
func (c *Config) applyProviders(fp map[string]Provider, bad func(key, format string, args ...any) error) error {
	names := make([]string, 0, len(fp))
	for name := range fp {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := fp[name]
		key := "providers." + name
		if strings.ContainsAny(name, "/ ") || name == "" {
			return bad(key, "provider names may not contain '/' or spaces")
		}
		b, builtin := c.Providers[name]
		if p.Type == "" {
			p.Type = TypeOpenAI
			if builtin {
				p.Type = b.Type
			}
		}
		known := false
		for _, t := range providerTypes {
			known = known || p.Type == t
		}
		if !known {
			return bad(key+".type", "%q is not a provider type (want one of %s)", p.Type, strings.Join(providerTypes, ", "))
		}
		if p.APIKeyEnv == "" && builtin {
			p.APIKeyEnv = b.APIKeyEnv
		}
		if p.APIKeyEnv == "" && p.Type == TypeAzure {
			// Azure's key variable, for every Azure OpenAI resource;
			// without it set, a Microsoft Entra ID login.
			p.APIKeyEnv = EnvAzureKey
		}
		if p.ContextWindow < 0 {
			return bad(key+".context_window", "must not be negative")
		}
		if len(p.Models) == 0 {
			p.Models = b.Models
		}
		switch p.API {
		case "", "auto", "chat", "responses":
		default:
			return bad(key+".api", "%q is not an OpenAI API (want chat, responses or auto)", p.API)
		}
		if p.API != "" && p.Type != TypeOpenAI && p.Type != TypeAzure {
			return bad(key+".api", "only openai and azure providers speak more than one API")
		}
		if _, err := llm.ParseEffort(p.ReasoningEffort); err != nil {
			return bad(key+".reasoning_effort", "%v", err)
		}
		c.Providers[name] = p
	}
	return nil
}

// ModelChoices lists the models the TUI's /model picker offers: the
// current one first, then every configured model of each provider that is
// set up (its key variable set, or none needed; a cloud's region, project
// or endpoint known), as PROVIDER/MODEL.
func (c *Config) ModelChoices(getenv func(string) string) []string {
	out := []string{}
	seen := map[string]bool{}
	add := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	add(c.Model)
	names := make([]string, 0, len(c.Providers))
	for n := range c.Providers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := c.Providers[n]
		if !p.setUp(getenv) {
			continue
		}
		for _, m := range p.Models {
			add(n + "/" + m)
		}
	}
	return out
}

// setUp reports whether the provider has what it needs to be offered.
func (p Provider) setUp(getenv func(string) string) bool {
	switch p.Type {
	case TypeScripted:
		return false
	case TypeBedrock:
		return p.Region != "" || getenv(EnvAWSRegion) != "" || getenv(EnvAWSDefaultRegion) != ""
	case TypeVertex:
		return p.Project != "" || getenv(EnvVertexProject) != "" || getenv(EnvGoogleProject) != ""
	case TypeAzure:
		return p.BaseURL != "" || getenv(EnvAzureEndpoint) != ""
	}
	return p.APIKeyEnv == "" || getenv(p.APIKeyEnv) != ""
}

// SplitModel splits "provider/model" at the first slash.
func SplitModel(s string) (provider, model string, err error) {
	p, m, ok := strings.Cut(s, "/")
	if !ok || p == "" || m == "" {
		return "", "", fmt.Errorf("model %q must be written PROVIDER/MODEL, e.g. openai/gpt-4.1 or anthropic/claude-sonnet-4-5", s)
	}
	return p, m, nil
}

// ErrNoProvider is returned (wrapped) by Resolve when no model can be used.
var ErrNoProvider = errors.New("no model provider is configured")

// Resolved is the provider chosen for a run.
type Resolved struct {
	Name     string // provider name as written before the slash
	Model    string // model name after the slash
	Provider Provider
	APIKey   string
	BaseURL  string
	// Effort is the reasoning effort: --effort, else the provider's
	// reasoning_effort.
	Effort llm.Effort
	// Region, Project and APIVersion are a cloud's (bedrock, vertex,
	// azure), from the provider's settings or the environment.
	Region, Project, APIVersion string
}

// Resolve picks the provider for c.Model and reads its key and base URL
// from the environment. Its errors say what to set.
func (c *Config) Resolve(getenv func(string) string) (Resolved, error) {
	if c.Model == "" {
		return Resolved{}, fmt.Errorf("%w: set %s (or %s), or choose a model with -m PROVIDER/MODEL, %s or `model` in %s",
			ErrNoProvider, EnvOpenAIKey, EnvAnthropicKey, EnvModel, c.File)
	}
	name, model, err := SplitModel(c.Model)
	if err != nil {
		return Resolved{}, err
	}
	p, ok := c.Providers[name]
	if !ok {
		known := make([]string, 0, len(c.Providers))
		for k := range c.Providers {
			known = append(known, k)
		}
		sort.Strings(known)
		return Resolved{}, fmt.Errorf("unknown provider %q in model %q (known: %s; add [providers.%s] to %s)",
			name, c.Model, strings.Join(known, ", "), name, c.File)
	}
	r := Resolved{Name: name, Model: model, Provider: p, BaseURL: p.BaseURL}
	r.Effort, _ = llm.ParseEffort(p.ReasoningEffort) // checked when read
	if c.Effort != "" {
		r.Effort = c.Effort
	}
	first := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	section := fmt.Sprintf("[providers.%s] of %s", name, c.File)
	switch p.Type {
	case TypeScripted:
		return r, nil
	case TypeOpenAI:
		if r.BaseURL == "" && name == TypeOpenAI {
			r.BaseURL = getenv(EnvOpenAIBaseURL)
		}
	case TypeAnthropic:
		if r.BaseURL == "" && name == TypeAnthropic {
			r.BaseURL = getenv(EnvAnthropicBaseURL)
		}
	case TypeBedrock:
		// An empty region may still come from the AWS profile: the CLI
		// asks the AWS SDK and says what to set if it has none either.
		r.Region = first(p.Region, getenv(EnvAWSRegion), getenv(EnvAWSDefaultRegion))
		r.BaseURL = first(p.BaseURL, getenv(EnvBedrockBaseURL))
		return r, nil
	case TypeVertex:
		// An empty project may still come from the credentials (the CLI
		// reads them).
		r.Project = first(p.Project, getenv(EnvVertexProject), getenv(EnvGoogleProject))
		r.Region = first(p.Region, getenv(EnvVertexRegion), DefaultVertexRegion)
		r.BaseURL = first(p.BaseURL, getenv(EnvVertexBaseURL))
		return r, nil
	case TypeAzure:
		r.BaseURL = first(p.BaseURL, getenv(EnvAzureEndpoint))
		r.APIVersion = first(p.APIVersion, getenv(EnvAzureAPIVersion)) // "": azure.DefaultAPIVersion
		if p.APIKeyEnv != "" {
			r.APIKey = getenv(p.APIKeyEnv) // none: a Microsoft Entra ID login
		}
		if r.BaseURL == "" {
			return r, fmt.Errorf("%w: model %q needs the Azure OpenAI resource's endpoint: set %s (https://NAME.openai.azure.com) or base_url in %s",
				ErrNoProvider, c.Model, EnvAzureEndpoint, section)
		}
		return r, nil
	}
	if p.APIKeyEnv != "" {
		r.APIKey = getenv(p.APIKeyEnv)
	}
	// A custom OpenAI-compatible endpoint (Ollama, vLLM) may need no key;
	// the public APIs always do.
	if r.APIKey == "" && r.BaseURL == "" {
		env := p.APIKeyEnv
		if env == "" {
			env = "an api_key_env"
		}
		return r, fmt.Errorf("%w: model %q needs %s to be set (or base_url for a local server in %s)",
			ErrNoProvider, c.Model, env, section)
	}
	return r, nil
}
