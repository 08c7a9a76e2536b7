// Package anthropic is the llm.Provider for the Anthropic Messages API. It
// streams content_block_* events, assembles tool_use input from
// input_json_delta fragments, reports thinking as reasoning, and sends tool
// results back as tool_result blocks.
//
// Extended thinking is asked for by a Request's Effort (see
// ThinkingBudget). Thinking and redacted_thinking blocks come back as
// llm.ReasoningBlocks with their signatures and are sent back unchanged
// and in their places, interleaved between tool calls included, as the
// API requires within a tool loop.
//
// Retries are llm.RetryPolicy's alone: the SDK's own retries are disabled.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/reqcache"
)

// DefaultBaseURL is the public Anthropic API root; the SDK appends /v1/messages.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the output limit sent when neither the Request nor
// WithMaxTokens sets one; the Messages API requires a value.
const DefaultMaxTokens = 8192

// Provider streams Messages API calls. It is safe for concurrent use.
type Provider struct {
	name      string
	maxTokens int
	cache     bool
	retry     llm.RetryPolicy
	client    sdk.MessageService
	msgCache  reqcache.Messages[blocks]
	toolCache reqcache.Tools[[]byte]
	budgets   map[llm.Effort]int
	vertex    *vertexRoute // nil unless WithVertex
	version   string       // anthropic_version in the body, "" for none
}

type config struct {
	name            string
	apiKey, baseURL string
	keySet, urlSet  bool
	httpClient      *http.Client
	retry           llm.RetryPolicy
	maxTokens       int
	cache           bool
	budgets         map[llm.Effort]int
	sdkOpts         []option.RequestOption
	vertex          *vertexRoute
	version         string
}

// Option configures a Provider.
type Option func(*config)

// WithAPIKey sets the x-api-key credential.
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey, c.keySet = key, true }
}

// WithBaseURL sets the API root, e.g. "https://api.anthropic.com" (the SDK
// appends /v1/messages; a trailing "/v1" is tolerated and removed).
func WithBaseURL(url string) Option {
	return func(c *config) { c.baseURL, c.urlSet = url, true }
}

// WithName sets the provider's short name (default "anthropic"), used in
// errors and by Name.
func WithName(name string) Option {
	return func(c *config) { c.name = name }
}

// WithRetry sets the retry policy (default: the zero llm.RetryPolicy).
func WithRetry(p llm.RetryPolicy) Option {
	return func(c *config) { c.retry = p }
}

// WithHTTPClient sets the HTTP client (default: a clone of the default
// transport).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.httpClient = hc }
}

// WithMaxTokens sets the output-token limit used when a Request leaves
// MaxTokens at 0 (default DefaultMaxTokens).
func WithMaxTokens(n int) Option {
	return func(c *config) { c.maxTokens = n }
}

// WithPromptCache switches prompt-cache breakpoints (cache_control on the
// system prompt, the last tool and the newest message) on or off; on by
// default, since an agent resends the same long prefix every turn.
func WithPromptCache(on bool) Option {
	return func(c *config) { c.cache = on }
}

// ThinkingBudget is the extended-thinking budget, in tokens, each effort
// asks for unless WithThinkingBudget says otherwise. The budget is added
// to the request's max_tokens, so the answer keeps its own room; the
// largest sum (28,192) fits every Claude model's output limit.
var ThinkingBudget = map[llm.Effort]int{
	llm.EffortLow:    4000,
	llm.EffortMedium: 10000,
	llm.EffortHigh:   20000,
}

// WithThinkingBudget sets the thinking budget of one effort (at least
// 1024 tokens, the API's minimum; 0 turns thinking off for that effort).
func WithThinkingBudget(e llm.Effort, tokens int) Option {
	return func(c *config) {
		if c.budgets == nil {
			c.budgets = maps.Clone(ThinkingBudget)
		}
		c.budgets[e] = tokens
	}
}

// WithBodyVersion puts anthropic_version in the request body, where the
// clouds take the API version: "bedrock-2023-05-31" on Amazon Bedrock
// (package bedrock sets it). WithVertex sets Vertex AI's own.
func WithBodyVersion(v string) Option {
	return func(c *config) { c.version = v }
}

// WithRequestOptions adds SDK request options after the provider's own,
// so that they run closest to the wire: a cloud's adaptation, such as the
// SDK's bedrock.WithConfig, sees the request harness9 built.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.sdkOpts = append(c.sdkOpts, opts...) }
}

// New returns a Provider. It reads no environment: the key and the base URL
// are what WithAPIKey and WithBaseURL give (harness9's CLI passes
// ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL).
func New(opts ...Option) *Provider {
	c := config{name: "anthropic", maxTokens: DefaultMaxTokens, cache: true}
	for _, o := range opts {
		o(&c)
	}
	if c.baseURL == "" {
		c.baseURL = DefaultBaseURL
		if c.vertex != nil {
			c.baseURL = VertexBaseURL(c.vertex.region)
		}
	}
	c.baseURL = strings.TrimSuffix(strings.TrimSuffix(c.baseURL, "/"), "/v1")
	if c.httpClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// A long session's request is hundreds of kilobytes: written
		// through the default 4 KiB buffer it takes a syscall per 4 KiB.
		tr.WriteBufferSize = 64 << 10
		c.httpClient = &http.Client{Transport: tr}
	}
	if c.maxTokens <= 0 {
		c.maxTokens = DefaultMaxTokens
	}
	if c.budgets == nil {
		c.budgets = ThinkingBudget
	}
	p := &Provider{name: c.name, maxTokens: c.maxTokens, cache: c.cache, retry: c.retry, budgets: c.budgets, vertex: c.vertex, version: c.version}
	if c.vertex != nil {
		p.version = VertexVersion
	}
	ropts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(c.baseURL + "/"),
		option.WithHTTPClient(c.httpClient),
		option.WithMaxRetries(0),
		option.WithMiddleware(p.checkStatus),
	}
	if c.apiKey != "" {
		ropts = append(ropts, option.WithAPIKey(c.apiKey))
	}
	ropts = append(ropts, c.sdkOpts...)
	p.client = sdk.NewClient(ropts...).Messages
	return p
}

// thinkingBudget is the thinking budget of an effort, 0 for none.
func (p *Provider) thinkingBudget(e llm.Effort) int {
	if e == llm.EffortDefault {
		return 0
	}
	return p.budgets[e]
}

// interleavedBeta lets Claude 4 and later models think between tool
// calls; Claude 3.7 thinks only at the start of its answer.
const interleavedBeta = "interleaved-thinking-2025-05-14"

var _ llm.Provider = (*Provider)(nil)

// Name returns the provider's short name.
func (p *Provider) Name() string { return p.name }

// Stream starts a streaming Messages call. Failures before any chunk was
// yielded are retried per the RetryPolicy; the final error is an
// *llm.ProviderError.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		body, think, err := p.body(req)
		if err != nil {
			yield(llm.Chunk{}, fmt.Errorf("%s: %w", p.name, err))
			return
		}
		defer body.Release()
		var opts []option.RequestOption
		if think && !strings.Contains(req.Model, "claude-3") {
			opts = append(opts, option.WithHeaderAdd("anthropic-beta", interleavedBeta))
		}
		if p.vertex != nil {
			opts = append(opts, p.vertex.route(req.Model))
		}
		stopped := false
		send := func(c llm.Chunk) bool {
			if !yield(c, nil) {
				stopped = true
			}
			return !stopped
		}
		err = p.retry.Do(ctx, func(ctx context.Context) (bool, error) {
			return p.attempt(ctx, body, send, opts)
		})
		if err != nil && !stopped {
			yield(llm.Chunk{}, err)
		}
	}
}

// attempt makes one request and streams its chunks to send. It reports
// whether any chunk was sent.
func (p *Provider) attempt(ctx context.Context, body *reqcache.Body, send func(llm.Chunk) bool, opts []option.RequestOption) (bool, error) {
	// The SDK encodes the (empty) params; checkStatus then sends body instead.
	stream := p.client.NewStreaming(reqcache.WithBody(ctx, body), sdk.MessageNewParams{}, opts...)
	defer stream.Close()
	a := assembler{send: send, name: p.name}
	events := 0
	for stream.Next() {
		events++
		cont, err := a.add(stream.Current())
		if err != nil {
			return a.sent, p.fail(ctx, err, true)
		}
		if !cont {
			return true, nil
		}
		if a.done {
			return a.sent, nil
		}
	}
	if err := stream.Err(); err != nil {
		return a.sent, p.fail(ctx, err, events > 0)
	}
	return a.sent, p.fail(ctx, llm.ErrStreamTruncated, true)
}

// checkStatus is an SDK middleware that sends the body built by attempt
// and turns HTTP error responses into *llm.ProviderError before the SDK
// sees them.
func (p *Provider) checkStatus(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	reqcache.SetBody(req)
	res, err := next(req)
	if err != nil {
		return nil, llm.Unsent(err)
	}
	if res.StatusCode < 400 {
		return res, nil
	}
	return nil, llm.ResponseError(p.name, res)
}

// streamErrorStatus maps the error types of a mid-stream "event: error" to
// the HTTP status the same error has as a response, so that overloaded and
// rate-limit errors before the first chunk are retried.
var streamErrorStatus = map[string]int{
	"overloaded_error":      529,
	"api_error":             500,
	"rate_limit_error":      429,
	"timeout_error":         504,
	"invalid_request_error": 400,
	// Amazon Bedrock's exceptions, as the SDK's Bedrock adapter reports
	// them.
	"throttlingException":           429,
	"serviceUnavailableException":   503,
	"internalServerException":       500,
	"modelStreamErrorException":     500,
	"modelTimeoutException":         504,
	"validationException":           400,
	"modelNotReadyException":        503,
	"accessDeniedException":         403,
	"resourceNotFoundException":     404,
	"serviceQuotaExceededException": 429,
}

// fail classifies an error of one attempt as an *llm.ProviderError;
// midStream says whether some of the response had been read.
func (p *Provider) fail(ctx context.Context, err error, midStream bool) error {
	var perr *llm.ProviderError
	if errors.As(err, &perr) {
		return perr
	}
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", p.name, ctx.Err())
	}
	var aerr *sdk.Error
	switch {
	case errors.As(err, &aerr):
		typ := string(aerr.Type())
		if typ == "" {
			typ = "an error"
		}
		return &llm.ProviderError{Provider: p.name, Status: streamErrorStatus[typ],
			Message: fmt.Sprintf("the stream reported %s: %s", typ, llm.ErrorMessage([]byte(aerr.RawJSON()))), Err: err}
	case errors.Is(err, llm.ErrStreamTruncated):
		return &llm.ProviderError{Provider: p.name, Message: err.Error(), Err: err}
	case llm.IsConnectionError(err) && midStream:
		return &llm.ProviderError{Provider: p.name, Message: "the connection dropped mid-stream: " + err.Error(), Err: err}
	case llm.IsConnectionError(err):
		return &llm.ProviderError{Provider: p.name, Message: "connection failed: " + err.Error(), Err: err}
	case strings.HasPrefix(err.Error(), "received error while streaming"):
		return &llm.ProviderError{Provider: p.name, Message: err.Error(), Err: err}
	}
	var unsent *llm.UnsentError
	if errors.As(err, &unsent) {
		return &llm.ProviderError{Provider: p.name, Message: "the request could not be made: " + unsent.Err.Error(), Err: err}
	}
	return &llm.ProviderError{Provider: p.name, Message: "malformed stream event: " + err.Error(), Err: err}
}
