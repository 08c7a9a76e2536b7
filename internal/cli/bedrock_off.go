//go:build !bedrock

package cli

import (
	"github.com/harness9/harness9/internal/config"
	"github.com/harness9/harness9/llm"
)

// The default build leaves Amazon Bedrock out (see bedrock.go, built with
// -tags bedrock): a bedrock/… model is refused with the build command
// that adds it.

// bedrockBuiltIn reports whether this binary includes Amazon Bedrock.
const bedrockBuiltIn = false

func newBedrock(c *config.Config, _ config.Resolved) (llm.Provider, error) {
	return nil, errNoBedrock(c.Model)
}

func bedrockDetail(config.Resolved, func(string) string) string {
	return "not in this build (build with -tags bedrock)"
}
