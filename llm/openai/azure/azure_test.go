package azure_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/openai"
	"github.com/harness9/harness9/llm/openai/azure"
)

type seen struct {
	uri    string
	header http.Header
	body   map[string]any
}

// azureServer answers Chat Completions and Responses requests as Azure
// OpenAI does, recording what arrived.
func azureServer(t *testing.T) (*httptest.Server, func() []seen) {
	var mu sync.Mutex
	var got []seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		mu.Lock()
		got = append(got, seen{r.URL.RequestURI(), r.Header.Clone(), body})
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if strings.HasSuffix(r.URL.Path, "/responses") {
			for _, e := range []string{
				`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"hello"}`,
				`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[],"usage":{"input_tokens":9,"output_tokens":2}}}`,
			} {
				var v struct{ Type string }
				_ = json.Unmarshal([]byte(e), &v)
				fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v.Type, e)
			}
			return
		}
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-5","choices":[{"index":0,"delta":{"content":"hello"},"finish_reason":"stop"}]}`+"\n\n")
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-5","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seen { mu.Lock(); defer mu.Unlock(); return append([]seen(nil), got...) }
}

type fakeCredential struct{ scopes []string }

func (f *fakeCredential) GetToken(_ context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	f.scopes = o.Scopes
	return azcore.AccessToken{Token: "entra-token-xyz", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

var req = llm.Request{Model: "my-gpt-5", MaxTokens: 100, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}

// A key goes in the api-key header; the deployment in the path; the
// api-version in the query; max_completion_tokens names the limit.
func TestAzureKeyChatCompletions(t *testing.T) {
	srv, got := azureServer(t)
	p := azure.New(srv.URL, "2025-04-01-preview", azure.WithAPIKey("azure-key-123"))
	resp, err := llm.Collect(p.Stream(context.Background(), req))
	if err != nil || resp.Message.Content != "hello" {
		t.Fatalf("%v %+v", err, resp)
	}
	s := got()[0]
	if s.uri != "/openai/deployments/my-gpt-5/chat/completions?api-version=2025-04-01-preview" {
		t.Errorf("uri = %s", s.uri)
	}
	if s.header.Get("Api-Key") != "azure-key-123" || s.header.Get("Authorization") != "" {
		t.Errorf("headers: api-key %q, authorization %q", s.header.Get("Api-Key"), s.header.Get("Authorization"))
	}
	if s.body["max_completion_tokens"] != float64(100) || s.body["model"] != "my-gpt-5" {
		t.Errorf("body = %v", s.body)
	}
	if p.Name() != "azure" {
		t.Errorf("name = %s", p.Name())
	}
}

// An Entra credential is asked for the Cognitive Services scope and sent
// as a bearer token; the Responses API goes to /openai/responses.
func TestAzureEntraResponses(t *testing.T) {
	srv, got := azureServer(t)
	cred := &fakeCredential{}
	p := azure.New(srv.URL+"/", "", azure.WithTokenCredential(cred), openai.WithAPI(openai.APIResponses))
	resp, err := llm.Collect(p.Stream(context.Background(), req))
	if err != nil || resp.Message.Content != "hello" {
		t.Fatalf("%v %+v", err, resp)
	}
	s := got()[0]
	if s.uri != "/openai/responses?api-version="+azure.DefaultAPIVersion {
		t.Errorf("uri = %s", s.uri)
	}
	if s.header.Get("Authorization") != "Bearer entra-token-xyz" || s.header.Get("Api-Key") != "" {
		t.Errorf("headers: authorization %q, api-key %q", s.header.Get("Authorization"), s.header.Get("Api-Key"))
	}
	if strings.Join(cred.scopes, " ") != "https://cognitiveservices.azure.com/.default" {
		t.Errorf("scopes = %v", cred.scopes)
	}
	if s.body["model"] != "my-gpt-5" || s.body["store"] != false {
		t.Errorf("body = %v", s.body)
	}
}
