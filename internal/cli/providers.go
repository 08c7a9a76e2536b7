package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"golang.org/x/oauth2/google"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/anthropic"
	"github.com/harness9/harness9/llm/openai"
	"github.com/harness9/harness9/llm/openai/azure"
	"github.com/harness9/harness9/llm/scripted"
)

// vertexScope is the OAuth scope Vertex AI's tokens are asked for.
const vertexScope = "https://www.googleapis.com/auth/cloud-platform"

// newProvider builds the provider c.Model names. Configuration problems are
// usage errors (exit 2) whose text says what to set.
func newProvider(c *config.Config, getenv func(string) string) (llm.Provider, config.Resolved, error) {
	r, err := c.Resolve(getenv)
	if err != nil {
		return nil, r, withCode(ExitUsage, err)
	}
	var p llm.Provider
	switch r.Provider.Type {
	case config.TypeScripted:
		sp, err := scripted.LoadFile(r.Model)
		if err != nil {
			return nil, r, withCode(ExitUsage, err)
		}
		return sp, r, nil
	case config.TypeAnthropic:
		opts := []anthropic.Option{anthropic.WithName(r.Name), anthropic.WithAPIKey(r.APIKey), anthropic.WithRetry(retryPolicy(c))}
		if r.BaseURL != "" {
			opts = append(opts, anthropic.WithBaseURL(r.BaseURL))
		}
		p = anthropic.New(opts...)
	case config.TypeBedrock:
		p, err = newBedrock(c, r)
	case config.TypeVertex:
		p, err = newVertex(c, &r)
	case config.TypeAzure:
		p, err = newAzure(c, r)
	default:
		api, _ := openai.ParseAPI(r.Provider.API) // checked when read
		opts := []openai.Option{openai.WithName(r.Name), openai.WithAPIKey(r.APIKey), openai.WithRetry(retryPolicy(c)), openai.WithAPI(api)}
		if r.BaseURL != "" {
			opts = append(opts, openai.WithBaseURL(r.BaseURL))
		}
		p = openai.New(opts...)
	}
	if err != nil {
		return nil, r, withCode(ExitUsage, err)
	}
	return p, r, nil
}

// newVertex builds Claude on Vertex AI with Google's application default
// credentials; a project the settings do not name comes from them.
func newVertex(c *config.Config, r *config.Resolved) (llm.Provider, error) {
	// The token source keeps this context for every token it fetches
	// later: it must outlive this call (the metadata server's probe has
	// its own timeout).
	creds, err := google.FindDefaultCredentials(context.Background(), vertexScope)
	if err != nil {
		return nil, fmt.Errorf("model %q on Vertex AI needs Google application default credentials: run `gcloud auth application-default login`, "+
			"or set GOOGLE_APPLICATION_CREDENTIALS to a service account key file (%v)", c.Model, err)
	}
	if r.Project == "" {
		r.Project = creds.ProjectID
	}
	if r.Project == "" {
		return nil, fmt.Errorf("model %q needs a Google Cloud project: set %s (or %s), or project in [providers.%s] of %s",
			c.Model, config.EnvVertexProject, config.EnvGoogleProject, r.Name, c.File)
	}
	opts := []anthropic.Option{anthropic.WithName(r.Name), anthropic.WithRetry(retryPolicy(c)),
		anthropic.WithVertex(r.Project, r.Region, creds.TokenSource)}
	if r.BaseURL != "" {
		opts = append(opts, anthropic.WithBaseURL(r.BaseURL))
	}
	return anthropic.New(opts...), nil
}

// newAzure builds an Azure OpenAI provider: the resource key when its
// variable is set, else a Microsoft Entra ID credential (environment,
// workload or managed identity, the Azure CLI's login).
func newAzure(c *config.Config, r config.Resolved) (llm.Provider, error) {
	api, _ := openai.ParseAPI(r.Provider.API) // checked when read
	opts := []openai.Option{openai.WithName(r.Name), openai.WithRetry(retryPolicy(c)), openai.WithAPI(api)}
	if r.APIKey != "" {
		opts = append(opts, azure.WithAPIKey(r.APIKey))
	} else {
		cred, err := azidentity.NewDefaultAzureCredential(nil)
		if err != nil {
			return nil, fmt.Errorf("model %q on Azure OpenAI needs %s or a Microsoft Entra ID login (az login, or AZURE_CLIENT_ID with AZURE_TENANT_ID "+
				"and a secret or certificate): %v", c.Model, keyEnvOr(r.Provider.APIKeyEnv, config.EnvAzureKey), err)
		}
		opts = append(opts, azure.WithTokenCredential(cred))
	}
	return azure.New(r.BaseURL, r.APIVersion, opts...), nil
}

// errNoBedrock is the refusal of a bedrock/… model by a binary built
// without Amazon Bedrock (bedrock_off.go).
func errNoBedrock(model string) error {
	return usageErr("%s runs on Amazon Bedrock, which this harness9 was built without; build it with "+
		"`go build -tags bedrock ./cmd/harness9` (or `go install -tags bedrock ./cmd/harness9`)", model)
}

func keyEnvOr(env, fallback string) string {
	if env == "" {
		return fallback
	}
	return env
}

// providerDetail is doctor's line about the chosen provider: where its
// credentials come from, its cloud settings, API and effort.
func providerDetail(c *config.Config, r config.Resolved, getenv func(string) string) string {
	parts := []string{c.Model}
	switch r.Provider.Type {
	case config.TypeScripted:
		return c.Model + " (scripted, no key needed)"
	case config.TypeBedrock:
		parts = append(parts, "Amazon Bedrock", bedrockDetail(r, getenv))
	case config.TypeVertex:
		project := r.Project
		if project == "" {
			project = "from the credentials"
		}
		creds := "application default credentials (gcloud's login or the metadata server)"
		if f := getenv("GOOGLE_APPLICATION_CREDENTIALS"); f != "" {
			creds = "credentials from GOOGLE_APPLICATION_CREDENTIALS (" + f + ")"
		}
		parts = append(parts, "Google Vertex AI", "project "+project, "region "+r.Region, creds)
	case config.TypeAzure:
		auth := "Microsoft Entra ID (" + keyEnvOr(r.Provider.APIKeyEnv, config.EnvAzureKey) + " unset)"
		if r.APIKey != "" {
			auth = "key from " + r.Provider.APIKeyEnv + " is set"
		}
		version := r.APIVersion
		if version == "" {
			version = azure.DefaultAPIVersion
		}
		parts = append(parts, "Azure OpenAI", r.BaseURL, "api-version "+version, auth)
	default:
		switch {
		case r.APIKey != "":
			parts = append(parts, "key from "+r.Provider.APIKeyEnv+" is set")
		case r.Provider.APIKeyEnv == "":
			parts = append(parts, "no key needed (no api_key_env), server at "+r.BaseURL)
		default:
			parts = append(parts, fmt.Sprintf("no key (%s unset), local server at %s", r.Provider.APIKeyEnv, r.BaseURL))
		}
	}
	if t := r.Provider.Type; (t == config.TypeOpenAI || t == config.TypeAzure) && r.Provider.API != "" {
		parts = append(parts, "api "+r.Provider.API)
	}
	if r.Effort != "" {
		parts = append(parts, "reasoning effort "+string(r.Effort))
	}
	return strings.Join(parts, " · ")
}

// providerEndpoint is the API root doctor asks: the configured one, or
// the protocol's or cloud's default.
func providerEndpoint(r config.Resolved) string {
	if r.BaseURL != "" {
		return r.BaseURL
	}
	switch r.Provider.Type {
	case config.TypeAnthropic:
		return anthropic.DefaultBaseURL
	case config.TypeBedrock:
		if r.Region == "" {
			return ""
		}
		return "https://bedrock-runtime." + r.Region + ".amazonaws.com"
	case config.TypeVertex:
		return anthropic.VertexBaseURL(r.Region)
	}
	return openai.DefaultBaseURL
}
