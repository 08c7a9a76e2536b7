package anthropic

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
	return llmtest.NewServer(t, "/v1/messages", handlers...)
}

type sleeper = llmtest.Sleeper

func provider(s *fakeServer, opts ...Option) (*Provider, *sleeper) {
	sl := &sleeper{}
	base := []Option{
		WithBaseURL(s.URL),
		WithAPIKey("sk-ant-test-secret"),
		WithRetry(llm.RetryPolicy{Sleep: sl.Sleep, Jitter: func() float64 { return 0 }}),
	}
	return New(append(base, opts...)...), sl
}

// event is one SSE event as the Messages API writes it: an event: line with
// the type and a data: line with the JSON.
type event struct{ name, data string }

func ev(data string) event {
	var v struct{ Type string }
	_ = json.Unmarshal([]byte(data), &v)
	return event{v.Type, data}
}

func sse(events ...event) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("Request-Id", "req_011CSHoEeqs5C35K2UUqR7Fy")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
			w.(http.Flusher).Flush()
		}
	}
}

// drop sends events, then kills the connection mid-response.
func drop(events ...event) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sse(events...)(w, r)
		panic(http.ErrAbortHandler)
	}
}

func apiError(status int, typ, msg string, headers ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}`, typ, msg)
	}
}

func messageStart(in, cacheRead, cacheWrite int) event {
	return ev(fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant",`+
		`"model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,`+
		`"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":1,"service_tier":"standard"}}}`,
		in, cacheWrite, cacheRead))
}

func ping() event { return event{"ping", `{"type": "ping"}`} }

func textStart(i int) event {
	return ev(fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, i))
}

func textDelta(i int, s string) event {
	b, _ := json.Marshal(s)
	return ev(fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, i, b))
}

func blockStop(i int) event {
	return ev(fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

func toolStart(i int, id, name string) event {
	return ev(fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, id, name))
}

func jsonDelta(i int, frag string) event {
	b, _ := json.Marshal(frag)
	return ev(fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, b))
}

// jsonDeltas cuts s into n-byte input_json_delta fragments, starting with
// the empty fragment the API sends first.
func jsonDeltas(i int, s string, n int) []event {
	out := []event{jsonDelta(i, "")}
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, jsonDelta(i, s[:k]))
		s = s[k:]
	}
	return out
}

func messageDelta(stop string, out int) event {
	return ev(fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, out))
}

func messageStop() event { return ev(`{"type":"message_stop"}`) }

// textReply is a complete stream answering with text.
func textReply(parts ...string) []event {
	evs := []event{messageStart(25, 0, 0), textStart(0), ping()}
	for _, p := range parts {
		evs = append(evs, textDelta(0, p))
	}
	return append(evs, blockStop(0), messageDelta("end_turn", 15), messageStop())
}

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

var simpleReq = llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
