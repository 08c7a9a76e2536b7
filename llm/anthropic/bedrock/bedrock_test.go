package bedrock_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/anthropic/bedrock"
)

const (
	keyID, secret = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	region        = "us-west-2"
	model         = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	sig1          = "EqQBCgIYAhIM1gb+cDa9/GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds=="
)

// request is what the stand-in received.
type request struct {
	path, rawPath, host string
	header              http.Header
	body                []byte
}

// bedrockServer is a stand-in for bedrock-runtime: it records each
// request and answers with the next script of events, framed as an AWS
// event stream of "chunk" events whose payload holds the base64 of each
// Messages event, as Bedrock does.
type bedrockServer struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []request
	answers [][]map[string]any
	fail    func(w http.ResponseWriter) bool
}

func newBedrock(t *testing.T, answers ...[]map[string]any) *bedrockServer {
	s := &bedrockServer{answers: answers}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.reqs)
		s.reqs = append(s.reqs, request{r.URL.Path, r.URL.RawPath, r.Host, r.Header.Clone(), body})
		s.mu.Unlock()
		if s.fail != nil && s.fail(w) {
			return
		}
		w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
		w.Header().Set("X-Amzn-Bedrock-Content-Type", "application/json")
		enc := eventstream.NewEncoder()
		for _, ev := range s.answers[min(n, len(s.answers)-1)] {
			raw, _ := json.Marshal(ev)
			payload, _ := json.Marshal(map[string]string{"bytes": base64.StdEncoding.EncodeToString(raw), "p": "abcdefghij"})
			if err := enc.Encode(w, eventstream.Message{Headers: eventstream.Headers{
				{Name: ":event-type", Value: eventstream.StringValue("chunk")},
				{Name: ":content-type", Value: eventstream.StringValue("application/json")},
				{Name: ":message-type", Value: eventstream.StringValue("event")},
			}, Payload: payload}); err != nil {
				t.Error(err)
			}
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *bedrockServer) req(i int) request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[i]
}

func exception(w http.ResponseWriter, typ, msg string) {
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	payload, _ := json.Marshal(map[string]string{"message": msg})
	_ = eventstream.NewEncoder().Encode(w, eventstream.Message{Headers: eventstream.Headers{
		{Name: ":exception-type", Value: eventstream.StringValue(typ)},
		{Name: ":content-type", Value: eventstream.StringValue("application/json")},
		{Name: ":message-type", Value: eventstream.StringValue("exception")},
	}, Payload: payload})
}

// answer is a streamed Messages answer: optional thinking, text, optional
// tool call.
func answer(thinking, text, callID string) []map[string]any {
	evs := []map[string]any{{"type": "message_start", "message": map[string]any{"id": "msg_bdrk_01", "type": "message", "role": "assistant",
		"model": "claude-sonnet-4-5-20250929", "content": []any{}, "usage": map[string]any{"input_tokens": 30, "output_tokens": 1,
			"cache_read_input_tokens": 20, "cache_creation_input_tokens": 5}}}}
	i := 0
	if thinking != "" {
		evs = append(evs,
			map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}},
			map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": thinking}},
			map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "signature_delta", "signature": sig1}},
			map[string]any{"type": "content_block_stop", "index": i})
		i++
	}
	evs = append(evs,
		map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}},
		map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": text}},
		map[string]any{"type": "content_block_stop", "index": i})
	stop := "end_turn"
	if callID != "" {
		i++
		stop = "tool_use"
		evs = append(evs,
			map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": callID, "name": "read_file", "input": map[string]any{}}},
			map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": `{"path":"a.go"}`}},
			map[string]any{"type": "content_block_stop", "index": i})
	}
	return append(evs,
		map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]any{"output_tokens": 40}},
		map[string]any{"type": "message_stop", "amazon-bedrock-invocationMetrics": map[string]any{"inputTokenCount": 30, "outputTokenCount": 40}})
}

func config(url string) aws.Config {
	return aws.Config{Region: region, BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider(keyID, secret, "")}
}

var authRE = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$`)

// checkSigned checks that a request carries a well-formed SigV4 signature
// for bedrock in the region, made with the key, and that it is the
// signature of exactly what arrived: the AWS signer, given the request
// rebuilt from the headers it names, the path and the body, computes the
// same one.
func checkSigned(t *testing.T, r request) {
	t.Helper()
	m := authRE.FindStringSubmatch(r.header.Get("Authorization"))
	if m == nil {
		t.Fatalf("Authorization is not SigV4: %q", r.header.Get("Authorization"))
	}
	if m[1] != keyID || m[3] != region || m[4] != "bedrock" {
		t.Errorf("credential scope %s/%s/%s/%s", m[1], m[2], m[3], m[4])
	}
	date := r.header.Get("X-Amz-Date")
	when, err := time.Parse("20060102T150405Z", date)
	if err != nil || !strings.HasPrefix(date, m[2]) {
		t.Fatalf("X-Amz-Date %q (scope date %s): %v", date, m[2], err)
	}
	rebuilt, _ := http.NewRequest(http.MethodPost, "http://"+r.host+r.path, bytes.NewReader(r.body))
	rebuilt.URL.RawPath = r.rawPath
	rebuilt.Host = r.host
	rebuilt.Header = http.Header{}
	for _, name := range strings.Split(m[5], ";") {
		if name != "host" && name != "content-length" {
			rebuilt.Header[http.CanonicalHeaderKey(name)] = r.header.Values(name)
		}
	}
	rebuilt.ContentLength = int64(len(r.body))
	sum := sha256.Sum256(r.body)
	creds := aws.Credentials{AccessKeyID: keyID, SecretAccessKey: secret}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, rebuilt, hex.EncodeToString(sum[:]), "bedrock", region, when); err != nil {
		t.Fatal(err)
	}
	if want := authRE.FindStringSubmatch(rebuilt.Header.Get("Authorization")); want == nil || want[6] != m[6] || want[5] != m[5] {
		t.Errorf("the signature does not sign what arrived:\n got %s\nwant %s", r.header.Get("Authorization"), rebuilt.Header.Get("Authorization"))
	}
}

// Claude on Bedrock with thinking across a tool call: each request goes to
// the model's invoke-with-response-stream path, signed with SigV4, with
// the API version in the body and no model or stream there; the event
// stream is decoded; the thinking block goes back with its signature.
func TestBedrockSignedStreamedAndThinking(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	s := newBedrock(t, answer("Read a.go first.", "Reading.", "toolu_1"), answer("", "Done.", ""))
	p := bedrock.New(config(s.URL))
	if p.Name() != "bedrock" {
		t.Errorf("name = %q", p.Name())
	}
	req := llm.Request{Model: model, Effort: llm.EffortLow, System: "You are harness9.",
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "fix it"}}}
	resp, err := llm.Collect(p.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Reading." || len(resp.Message.ToolCalls) != 1 || string(resp.Message.ToolCalls[0].Input) != `{"path":"a.go"}` {
		t.Fatalf("message = %+v", resp.Message)
	}
	if want := (llm.Usage{InputTokens: 55, OutputTokens: 40, CacheReadTokens: 20, CacheWriteTokens: 5}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	req.Messages = append(req.Messages, resp.Message, llm.Message{Role: llm.RoleTool, ToolCallID: "toolu_1", Name: "read_file", Content: "package a"})
	resp, err = llm.Collect(p.Stream(context.Background(), req))
	if err != nil || resp.Message.Content != "Done." {
		t.Fatalf("second call: %v %+v", err, resp.Message)
	}
	for i := range 2 {
		r := s.req(i)
		checkSigned(t, r)
		if want := "/model/" + model + "/invoke-with-response-stream"; r.path != want {
			t.Errorf("path = %s, want %s", r.path, want)
		}
		var body map[string]json.RawMessage
		if err := json.Unmarshal(r.body, &body); err != nil {
			t.Fatal(err)
		}
		if string(body["anthropic_version"]) != `"bedrock-2023-05-31"` || body["model"] != nil || body["stream"] != nil {
			t.Errorf("body: %s", r.body)
		}
		if string(body["anthropic_beta"]) != `["interleaved-thinking-2025-05-14"]` || r.header.Get("Anthropic-Beta") != "" {
			t.Errorf("the interleaved-thinking beta is not in the body: %s", body["anthropic_beta"])
		}
		if r.header.Get("X-Api-Key") != "" || r.header.Get("Anthropic-Version") != "" {
			t.Errorf("first-party headers sent to Bedrock: %v", r.header)
		}
	}
	want := `{"role":"assistant","content":[{"type":"thinking","thinking":"Read a.go first.","signature":"` + sig1 + `"},{"type":"text","text":"Reading."},`
	if !bytes.Contains(s.req(1).body, []byte(want)) {
		t.Errorf("the thinking block did not go back:\n%s", s.req(1).body)
	}
}

// A throttling exception before any output is retried; a Bedrock API key
// is sent as a bearer token instead of a signature.
func TestBedrockThrottlingAndAPIKey(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	s := newBedrock(t, answer("", "ok", ""))
	first := true
	s.fail = func(w http.ResponseWriter) bool {
		if first {
			first = false
			exception(w, "throttlingException", "Too many requests, please wait before trying again.")
			return true
		}
		return false
	}
	p := bedrock.New(config(s.URL), anthropicRetry())
	resp, err := llm.Collect(p.Stream(context.Background(), llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}}))
	if err != nil || resp.Message.Content != "ok" || len(s.reqs) != 2 {
		t.Fatalf("after throttling: %v %q, %d requests", err, resp.Message.Content, len(s.reqs))
	}

	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-123")
	s = newBedrock(t, answer("", "ok", ""))
	p = bedrock.New(config(s.URL))
	if _, err := llm.Collect(p.Stream(context.Background(), llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})); err != nil {
		t.Fatal(err)
	}
	if got := s.req(0).header.Get("Authorization"); got != "Bearer bedrock-api-key-123" {
		t.Errorf("Authorization = %q", got)
	}
}

// A refused request names Bedrock's message.
func TestBedrockError(t *testing.T) {
	t.Setenv("AWS_BEARER_TOKEN_BEDROCK", "")
	s := newBedrock(t, answer("", "never", ""))
	s.fail = func(w http.ResponseWriter) bool {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"message":"You don't have access to the model with the specified model ID."}`)
		return true
	}
	_, err := llm.Collect(bedrock.New(config(s.URL)).Stream(context.Background(), llm.Request{Model: model}))
	if err == nil || !strings.Contains(err.Error(), "bedrock: HTTP 403 Forbidden: You don't have access to the model") {
		t.Fatalf("err = %v", err)
	}
}
