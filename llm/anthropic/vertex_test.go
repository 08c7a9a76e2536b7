package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
	"golang.org/x/oauth2"
)

// staticToken is a token source that always gives the same bearer token.
func staticToken(tok string) oauth2.TokenSource {
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: tok, TokenType: "Bearer"})
}

type failingTokens struct{}

func (failingTokens) Token() (*oauth2.Token, error) {
	return nil, errors.New("could not find default credentials")
}

// Vertex AI: the model in the path (":streamRawPredict", the '@' of its
// version kept), the API version in the body instead of the model, the
// OAuth token as the credential and no API key; thinking works the same.
func TestVertexPathHeadersAndAuth(t *testing.T) {
	s := newRawServer(t, sse(interleaved()...), sse(textReply("ok")...))
	p := New(WithBaseURL(s.URL), WithVertex("my-proj", "us-east5", staticToken("ya29.token")), WithName("vertex"))
	req := llm.Request{Model: "claude-sonnet-4-5@20250929", Effort: llm.EffortLow,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "fix it"}}}
	hist := thinkingTurn(t, p, s, req)
	req.Messages = hist
	if _, err := llm.Collect(p.Stream(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if want := "/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict"; s.paths[i] != want {
			t.Errorf("path = %s, want %s", s.paths[i], want)
		}
		h := s.headers[i]
		if h.Get("Authorization") != "Bearer ya29.token" || h.Get("X-Api-Key") != "" || h.Get("Anthropic-Version") != "" {
			t.Errorf("headers: %v", h)
		}
		var body map[string]json.RawMessage
		if err := json.Unmarshal(s.body(i), &body); err != nil {
			t.Fatal(err)
		}
		if string(body["anthropic_version"]) != `"vertex-2023-10-16"` || body["model"] != nil || string(body["stream"]) != "true" {
			t.Errorf("body: %s", s.body(i))
		}
	}
	if !strings.Contains(string(s.body(1)), `"signature":"`+sig1+`"`) {
		t.Errorf("thinking did not go back on Vertex: %s", s.body(1))
	}
}

func TestVertexBaseURLs(t *testing.T) {
	for region, want := range map[string]string{
		"us-east5":     "https://us-east5-aiplatform.googleapis.com",
		"global":       "https://aiplatform.googleapis.com",
		"eu":           "https://aiplatform.eu.rep.googleapis.com",
		"europe-west1": "https://europe-west1-aiplatform.googleapis.com",
	} {
		if got := VertexBaseURL(region); got != want {
			t.Errorf("VertexBaseURL(%s) = %s, want %s", region, got, want)
		}
	}
}

func TestVertexCredentialsFailure(t *testing.T) {
	s := newRawServer(t, sse(textReply("ok")...))
	p := New(WithBaseURL(s.URL), WithVertex("p", "us-east5", failingTokens{}), WithName("vertex"))
	_, err := llm.Collect(p.Stream(context.Background(), simpleReq))
	if err == nil || !strings.Contains(err.Error(), "getting a token for Vertex AI") || !strings.Contains(err.Error(), "could not find default credentials") {
		t.Fatalf("err = %v", err)
	}
	if len(s.bodies) != 0 {
		t.Error("a request was sent without credentials")
	}
	p = New(WithBaseURL(s.URL), WithVertex("", "us-east5", staticToken("t")))
	if _, err := llm.Collect(p.Stream(context.Background(), simpleReq)); err == nil || !strings.Contains(err.Error(), "project") {
		t.Fatalf("err = %v", err)
	}
}
