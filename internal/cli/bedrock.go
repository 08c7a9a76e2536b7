//go:build bedrock

// This file is the CLI's wiring of Claude on Amazon Bedrock (package
// llm/anthropic/bedrock). It builds only with -tags bedrock: the AWS SDK's
// credential chain (STS, SSO, instance metadata and their endpoint
// tables) costs every process start about 0.8 ms of package
// initialisation and half a megabyte of allocations, and the binary 3.4 MB
// (docs/performance.md), for a host few installations use.
// bedrock_off.go is the default build's side: the same provider, refused
// with the build command that enables it.
package cli

import (
	"context"
	"fmt"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"

	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/anthropic"
	"github.com/harness9/harness9/llm/anthropic/bedrock"
)

// bedrockBuiltIn reports whether this binary includes Amazon Bedrock.
const bedrockBuiltIn = true

// cloudSetupTimeout bounds reading the AWS configuration when the
// provider is built (the credential chain may ask the instance metadata
// service).
const cloudSetupTimeout = 10 * time.Second

// newBedrock builds Claude on Bedrock with the AWS credential chain: the
// environment, the shared config and credentials files (profiles, SSO),
// web identity, container and instance roles.
func newBedrock(c *config.Config, r config.Resolved) (llm.Provider, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cloudSetupTimeout)
	defer cancel()
	var load []func(*awsconfig.LoadOptions) error
	if r.Region != "" {
		load = append(load, awsconfig.WithRegion(r.Region))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("model %q on Amazon Bedrock: the AWS configuration could not be read: %v", c.Model, err)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("model %q needs an AWS region: set %s (e.g. us-east-1), region in the AWS profile, or region in [providers.%s] of %s",
			c.Model, config.EnvAWSRegion, r.Name, c.File)
	}
	if r.BaseURL != "" {
		cfg.BaseEndpoint = &r.BaseURL
	}
	return bedrock.New(cfg, anthropic.WithName(r.Name), anthropic.WithRetry(retryPolicy(c))), nil
}

// bedrockDetail is doctor's description of the Bedrock set-up.
func bedrockDetail(r config.Resolved, getenv func(string) string) string {
	region := r.Region
	if region == "" {
		region = "from the AWS profile"
	}
	return "region " + region + " · credentials: " + bedrockCredentials(getenv)
}

// bedrockCredentials names where the AWS credential chain will find
// credentials, from the variables that decide it.
func bedrockCredentials(getenv func(string) string) string {
	switch {
	case getenv("AWS_BEARER_TOKEN_BEDROCK") != "":
		return "a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK)"
	case getenv("AWS_ACCESS_KEY_ID") != "":
		return "keys from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
	case getenv("AWS_PROFILE") != "":
		return "the AWS profile " + getenv("AWS_PROFILE")
	}
	return "the AWS credential chain (default profile, SSO, web identity, container or instance role)"
}
