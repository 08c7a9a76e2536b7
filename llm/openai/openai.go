// Package openai is the llm.Provider for the OpenAI Chat Completions API and
// the many servers that speak it (Ollama, vLLM, DeepSeek, OpenRouter, LM
// Studio ...). It streams with stream_options.include_usage, assembles tool
// calls whose arguments arrive in fragments, and keeps reasoning_content
// deltas separate from the visible text.
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
)

// DefaultBaseURL is the public OpenAI API.
const DefaultBaseURL = "https://api.openai.com/v1"

// Provider streams Chat Completions. It is safe for concurrent use.
type Provider struct {
	name      string
	maxTokens int
	retry     llm.RetryPolicy
	client    sdk.ChatCompletionService
	msgCache  reqcache.Messages[encoded]
	toolCache reqcache.Tools[[]byte]
	prefix    reqcache.Prefix
}

type config struct {
	name            string
	apiKey, baseURL string
	keySet, urlSet  bool
	httpClient      *http.Client
	retry           llm.RetryPolicy
	maxTokens       int
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
	p := &Provider{name: c.name, maxTokens: c.maxTokens, retry: c.retry}
	ropts := []option.RequestOption{
		option.WithBaseURL(c.baseURL),
		option.WithHTTPClient(c.httpClient),
		option.WithMaxRetries(0),
		option.WithMiddleware(p.checkStatus),
	}
	if c.apiKey != "" {
		ropts = append(ropts, option.WithAPIKey(c.apiKey))
	}
	// NewChatCompletionService, unlike NewClient, reads no OPENAI_* variables.
	p.client = sdk.NewChatCompletionService(ropts...)
	return p
}

var _ llm.Provider = (*Provider)(nil)

// Name returns the provider's short name.
func (p *Provider) Name() string { return p.name }

// Stream starts a streaming Chat Completion. Failures before any chunk was
// yielded are retried per the RetryPolicy; the final error is an
// *llm.ProviderError.
func (p *Provider) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		body, err := p.body(req)
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
			return p.attempt(ctx, body, send)
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
	switch {
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
