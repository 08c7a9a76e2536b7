// Package openai is the llm.Provider for the OpenAI Chat Completions API and
// the many servers that speak it (Ollama, vLLM, DeepSeek, OpenRouter, LM
// Studio ...). It streams with stream_options.include_usage, assembles tool
// calls whose arguments arrive in fragments, and keeps reasoning_content
// deltas separate from the visible text.
//
// The same Provider speaks OpenAI's Responses API (WithAPI), where some
// models are served only and where a reasoning model's reasoning items are
// carried from call to call: it sends store=false, asks for the items'
// encrypted content and sends them back in their places.
//
// Retries are llm.RetryPolicy's alone: the SDK's own retries are disabled.
package openai

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/reqcache"
	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// DefaultBaseURL is the public OpenAI API.
const DefaultBaseURL = "https://api.openai.com/v1"

// API names the wire a Provider speaks.
type API string

// The APIs a Provider can speak.
const (
	// APIAuto speaks Chat Completions, and Responses to the models that
	// are served only there (ResponsesOnly). The default.
	APIAuto API = ""
	// APIChat is Chat Completions (/chat/completions).
	APIChat API = "chat"
	// APIResponses is the Responses API (/responses).
	APIResponses API = "responses"
)

// ParseAPI reads "chat", "responses" or "auto" ("" is auto).
func ParseAPI(s string) (API, error) {
	switch a := API(s); a {
	case APIChat, APIResponses, APIAuto:
		return a, nil
	case "auto":
		return APIAuto, nil
	}
	return "", fmt.Errorf("%q is not an OpenAI API (want chat, responses or auto)", s)
}

// Provider streams Chat Completions or Responses. It is safe for
// concurrent use.
type Provider struct {
	name      string
	maxTokens int
	retry     llm.RetryPolicy
	api       API
	// completionTokens sends the output limit as max_completion_tokens
	// (OpenAI's name, which its reasoning models require) instead of
	// max_tokens.
	completionTokens bool
	client           sdk.ChatCompletionService
	responses        responses.ResponseService
	msgCache         reqcache.Messages[encoded]
	toolCache        reqcache.Tools[[]byte]
	// The Responses wire's caches: its messages and tools are encoded
	// differently.
	itemCache  reqcache.Messages[[]byte]
	rtoolCache reqcache.Tools[[]byte]
}

type config struct {
	name            string
	apiKey, baseURL string
	keySet, urlSet  bool
	httpClient      *http.Client
	retry           llm.RetryPolicy
	maxTokens       int
	api             API
	sdkOpts         []option.RequestOption
	// completionTokens is nil until WithMaxCompletionTokens.
	completionTokens *bool
}

// Option configures a Provider.
type Option func(*config)

// WithAPIKey sets the bearer key. An empty key sends no Authorization header
// (Ollama, local vLLM).
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey, c.keySet = key, true }
}

// WithBaseURL sets the API root in its ".../v1" form, e.g.
// "http://localhost:11434/v1" for Ollama.
func WithBaseURL(url string) Option {
	return func(c *config) { c.baseURL, c.urlSet = url, true }
}

// WithName sets the provider's short name (default "openai"), so that an
// OpenAI-compatible server configured as "ollama" or "deepseek" reports and
// names its errors as such.
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
// MaxTokens at 0. Zero (the default) sends no limit and lets the server decide.
func WithMaxTokens(n int) Option {
	return func(c *config) { c.maxTokens = n }
}

// WithMaxCompletionTokens says whether Chat Completions requests name the
// output limit max_completion_tokens, as OpenAI and Azure OpenAI want
// (their reasoning models refuse max_tokens), rather than max_tokens, which
// is all most compatible servers know. The default is on for a provider
// named "openai", off otherwise.
func WithMaxCompletionTokens(on bool) Option {
	return func(c *config) { c.completionTokens = &on }
}

// WithAPI chooses the wire (default APIAuto).
func WithAPI(api API) Option {
	return func(c *config) { c.api = api }
}

// WithRequestOptions adds SDK request options after the provider's own,
// so that they run closest to the wire: a cloud's adaptation, such as the
// SDK's azure.WithEndpoint, sees the request harness9 built.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return func(c *config) { c.sdkOpts = append(c.sdkOpts, opts...) }
}

// New returns a Provider. It reads no environment: the key and the base URL
// are what WithAPIKey and WithBaseURL give (a program that wants
// OPENAI_API_KEY passes the value of $OPENAI_API_KEY, as harness9's CLI
// does), so a library user's provider never picks up a key by accident.
func New(opts ...Option) *Provider {
	c := config{name: "openai"}
	for _, o := range opts {
		o(&c)
	}
	if c.baseURL == "" {
		c.baseURL = DefaultBaseURL
	}
	if c.httpClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		// A long session's request is hundreds of kilobytes: written
		// through the default 4 KiB buffer it takes a syscall per 4 KiB.
		tr.WriteBufferSize = 64 << 10
		c.httpClient = &http.Client{Transport: tr}
	}
	p := &Provider{name: c.name, maxTokens: c.maxTokens, retry: c.retry, api: c.api, completionTokens: c.name == "openai"}
	if c.completionTokens != nil {
		p.completionTokens = *c.completionTokens
	}
	ropts := []option.RequestOption{
		option.WithBaseURL(c.baseURL),
		option.WithHTTPClient(c.httpClient),
		option.WithMaxRetries(0),
		option.WithMiddleware(p.checkStatus),
	}
	if c.apiKey != "" {
		ropts = append(ropts, option.WithAPIKey(c.apiKey))
	}
	ropts = append(ropts, c.sdkOpts...)
	// The services, unlike NewClient, read no OPENAI_* variables.
	p.client = sdk.NewChatCompletionService(ropts...)
	p.responses = responses.NewResponseService(ropts...)
	return p
}

// API is the wire the provider speaks to model: APIChat or APIResponses.
func (p *Provider) API(model string) API {
	if p.api == APIAuto {
		if ResponsesOnly(model) {
			return APIResponses
		}
		return APIChat
	}
	return p.api
}

var _ llm.Provider = (*Provider)(nil)

// Name returns the provider's short name.
func (p *Provider) Name() string { return p.name }

// Stream starts a streaming Chat Completion or Response. Failures before
// any chunk was yielded are retried per the RetryPolicy; the final error
// is an *llm.ProviderError.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		build, attempt := p.body, p.attempt
		if p.API(req.Model) == APIResponses {
			build, attempt = p.responsesBody, p.attemptResponses
		}
		body, err := build(req)
		if err != nil {
			yield(llm.Chunk{}, fmt.Errorf("%s: %w", p.name, err))
			return
		}
		defer body.Release()
		stopped := false
		send := func(c llm.Chunk) bool {
			if !yield(c, nil) {
				stopped = true
			}
			return !stopped
		}
		err = p.retry.Do(ctx, func(ctx context.Context) (bool, error) {
			return attempt(ctx, body, send)
		})
		if err != nil && !stopped {
			yield(llm.Chunk{}, err)
		}
	}
}

// attempt makes one request and streams its chunks to send. It reports
// whether any chunk was sent.
func (p *Provider) attempt(ctx context.Context, body *reqcache.Body, send func(llm.Chunk) bool) (bool, error) {
	// The SDK encodes the (empty) params; checkStatus then sends body instead.
	stream := p.client.NewStreaming(reqcache.WithBody(ctx, body), sdk.ChatCompletionNewParams{})
	defer stream.Close()
	a := assembler{send: send}
	events := 0
	for stream.Next() {
		events++
		if !a.add(stream.Current()) {
			return true, nil
		}
	}
	if err := stream.Err(); err != nil {
		return a.sent, p.fail(ctx, err, events > 0)
	}
	cont, err := a.finish()
	if err != nil {
		return a.sent, p.fail(ctx, err, true)
	}
	if !cont {
		return true, nil
	}
	return a.sent, nil
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

// failureStatus maps the codes of a failed Responses stream to the HTTP
// status the same error has as a response, so that a server error or a
// rate limit before the first chunk is retried.
var failureStatus = map[string]int{
	"server_error":        500,
	"rate_limit_exceeded": 429,
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
	var serr *ssestream.StreamError
	var failed *streamFailure
	switch {
	case errors.As(err, &failed):
		return &llm.ProviderError{Provider: p.name, Status: failureStatus[failed.code],
			Message: "the response failed: " + failed.Error(), Err: err}
	case errors.As(err, &serr):
		return &llm.ProviderError{Provider: p.name, Message: "the server sent an error mid-stream: " +
			llm.ErrorMessage(serr.Event.Data), Err: err}
	case errors.Is(err, llm.ErrStreamTruncated):
		return &llm.ProviderError{Provider: p.name, Message: err.Error(), Err: err}
	case llm.IsConnectionError(err) && midStream:
		return &llm.ProviderError{Provider: p.name, Message: "the connection dropped mid-stream: " + err.Error(), Err: err}
	case llm.IsConnectionError(err):
		return &llm.ProviderError{Provider: p.name, Message: "connection failed: " + err.Error(), Err: err}
	}
	var unsent *llm.UnsentError
	if errors.As(err, &unsent) {
		return &llm.ProviderError{Provider: p.name, Message: "the request could not be made: " + unsent.Err.Error(), Err: err}
	}
	return &llm.ProviderError{Provider: p.name, Message: "malformed stream chunk: " + err.Error(), Err: err}
}
