// Package azure runs OpenAI models on Azure OpenAI (Azure AI Foundry): an
// openai.Provider whose requests the OpenAI SDK's Azure adapter sends to a
// resource's deployments, with the api-version query, authenticated by a
// resource key or a Microsoft Entra ID token. Everything else (bodies,
// both wires, reasoning, retries) is the openai package's.
//
// A model name is a deployment name: "azure/my-gpt-5" calls the deployment
// "my-gpt-5". Chat Completions goes to
// /openai/deployments/NAME/chat/completions, the Responses API to
// /openai/responses with the deployment as the model.
package azure

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/openai/openai-go/v3/azure"

	"github.com/harness9/harness9/llm/openai"
)

// DefaultAPIVersion is the Azure OpenAI API version used when none is
// given: the first that serves both Chat Completions and the Responses API.
const DefaultAPIVersion = "2025-04-01-preview"

// WithAPIKey authenticates with a resource key (the api-key header).
func WithAPIKey(key string) openai.Option {
	return openai.WithRequestOptions(azure.WithAPIKey(key))
}

// WithTokenCredential authenticates with a Microsoft Entra ID credential
// (azidentity.NewDefaultAzureCredential: environment, workload or managed
// identity, the Azure CLI's login), as a bearer token for the Cognitive
// Services scope.
func WithTokenCredential(cred azcore.TokenCredential) openai.Option {
	return openai.WithRequestOptions(azure.WithTokenCredential(cred))
}

// New returns a provider named "azure" for the Azure OpenAI resource at
// endpoint ("https://NAME.openai.azure.com"), speaking apiVersion
// (DefaultAPIVersion when ""). Give it WithAPIKey or WithTokenCredential;
// opts come after the defaults (WithName changes the name). A credential
// is sent over plain HTTP only to a loopback address (a local proxy).
func New(endpoint, apiVersion string, opts ...openai.Option) *openai.Provider {
	if apiVersion == "" {
		apiVersion = DefaultAPIVersion
	}
	all := []openai.Option{openai.WithName("azure"), openai.WithMaxCompletionTokens(true),
		openai.WithRequestOptions(azure.WithEndpoint(endpoint, apiVersion), azure.WithUnsafeAllowHTTP())}
	return openai.New(append(all, opts...)...)
}
