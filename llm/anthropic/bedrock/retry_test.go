package bedrock_test

import (
	"context"
	"time"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/anthropic"
)

// anthropicRetry retries without sleeping.
func anthropicRetry() anthropic.Option {
	return anthropic.WithRetry(llm.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }})
}
