// Package bedrock runs Claude on Amazon Bedrock: an anthropic.Provider
// whose requests the Anthropic SDK's Bedrock adapter routes to the
// model's invoke-with-response-stream endpoint and signs with AWS SigV4
// (or sends with a Bedrock API key), and whose AWS event-stream responses
// it decodes. Everything else (the body built once per message, thinking,
// prompt caching, retries) is the anthropic package's.
//
// It is a package of its own because the AWS SDK it links costs every
// process start (see docs/performance.md): a program pays for it only if
// it imports this package.
//
// The credentials are the aws.Config's: load them with the AWS SDK's
// config.LoadDefaultConfig (environment, shared config and SSO profiles,
// web identity, container and instance roles). One exception to "the
// library reads no environment": the SDK's adapter itself uses
// AWS_BEARER_TOKEN_BEDROCK, a Bedrock API key, when it is set.
package bedrock

import (
	"github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/harness9/harness9/llm/anthropic"
)

// Version is the API version Bedrock takes in the request body.
const Version = "bedrock-2023-05-31"

// New returns a provider named "bedrock" that calls Claude on Amazon
// Bedrock in cfg.Region with cfg.Credentials. cfg.BaseEndpoint, when set,
// replaces the region's endpoint (a VPC endpoint, a proxy). Model names
// are Bedrock's model or inference-profile IDs, e.g.
// "us.anthropic.claude-sonnet-4-5-20250929-v1:0". opts come after the
// defaults (WithName changes the name).
func New(cfg aws.Config, opts ...anthropic.Option) *anthropic.Provider {
	ropts := []option.RequestOption{bedrock.WithConfig(cfg)}
	if cfg.BaseEndpoint != nil && *cfg.BaseEndpoint != "" {
		// After the adapter's own base URL, which names the region.
		ropts = append(ropts, option.WithBaseURL(*cfg.BaseEndpoint))
	}
	all := append([]anthropic.Option{anthropic.WithName("bedrock"), anthropic.WithBodyVersion(Version)}, opts...)
	return anthropic.New(append(all, anthropic.WithRequestOptions(ropts...))...)
}
