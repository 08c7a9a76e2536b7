package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/internal/llmtest"
)

type fakeServer = llmtest.Server

func newServer(t testing.TB, handlers ...http.HandlerFunc) *fakeServer {
	t.Helper()
	return llmtest.NewServer(t, "/v1/chat/completions", handlers...)
}

type sleeper = llmtest.Sleeper

// provider returns a Provider for s with a recording, non-sleeping retry policy.
func provider(s *fakeServer, opts ...Option) (*Provider, *sleeper) {
	sl := &sleeper{}
	base := []Option{
		WithBaseURL(s.URL + "/v1"),
		WithAPIKey("sk-test-secret"),
		WithRetry(llm.RetryPolicy{Sleep: sl.Sleep, Jitter: func() float64 { return 0 }}),
	}
	return New(append(base, opts...)...), sl
}

// sse answers with the given chat.completion.chunk data payloads, each as
// one SSE event, then "data: [DONE]" unless done is false.
func sse(done bool, events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
		if done {
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
	}
}

// drop sends events, then kills the connection without finishing the
// chunked response, as a crashed proxy would.
func drop(events ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sse(false, events...)(w, r)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
}

// apiError answers with an OpenAI-style error body.
func apiError(status int, msg string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"server_error","param":null,"code":null}}`, msg)
	}
}

const head = `"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion.chunk","created":1741570283,"model":"gpt-4o-2024-08-06","service_tier":"default","system_fingerprint":"fp_eb9dce56a8"`

// delta is a chunk whose choice 0 carries the given delta JSON.
func delta(d string) string {
	return `{` + head + `,"choices":[{"index":0,"delta":` + d + `,"logprobs":null,"finish_reason":null}],"usage":null}`
}

func roleChunk() string { return delta(`{"role":"assistant","content":"","refusal":null}`) }

func textChunk(s string) string {
	b, _ := json.Marshal(s)
	return delta(`{"content":` + string(b) + `}`)
}

func finishChunk(reason string) string {
	return `{` + head + `,"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"` + reason + `"}],"usage":null}`
}

func usageChunk(in, out, cached int) string {
	return fmt.Sprintf(`{`+head+`,"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,`+
		`"prompt_tokens_details":{"cached_tokens":%d,"audio_tokens":0},`+
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`,
		in, out, in+out, cached)
}

// toolStart opens tool call index with its id and name; toolArgs continues it.
func toolStart(index int, id, name string) string {
	return delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`, index, id, name))
}

func toolArgs(index int, frag string) string {
	b, _ := json.Marshal(frag)
	return delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, index, b))
}

// splitArgs cuts s into fragments of n bytes, as the API streams arguments.
func splitArgs(index int, s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, toolArgs(index, s[:k]))
		s = s[k:]
	}
	return out
}

// collect drains a stream into its chunks and the final error.
func collect(p llm.Provider, req llm.Request) ([]llm.Chunk, error) {
	var chunks []llm.Chunk
	for c, err := range p.Stream(context.Background(), req) {
		if err != nil {
			return chunks, err
		}
		chunks = append(chunks, c)
	}
	return chunks, nil
}

func textOf(chunks []llm.Chunk, kind llm.ChunkKind) string {
	var b strings.Builder
	for _, c := range chunks {
		if c.Kind == kind {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

var simpleReq = llm.Request{Model: "gpt-4o", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
