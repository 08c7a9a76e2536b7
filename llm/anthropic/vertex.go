package anthropic

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"golang.org/x/oauth2"
)

// VertexVersion is the API version Vertex AI's Anthropic endpoint takes in
// the request body.
const VertexVersion = "vertex-2023-10-16"

// vertexRoute sends Messages calls to Google Vertex AI: the model goes in
// the URL instead of the body, and each request carries an OAuth token.
type vertexRoute struct {
	project, region string
	tokens          oauth2.TokenSource
}

// WithVertex sends requests to Claude on Google Vertex AI, in project and
// region ("us-east5", "europe-west1", or "global"), authorised by tokens
// (Google application default credentials give one:
// google.FindDefaultCredentials(ctx, "https://www.googleapis.com/auth/cloud-platform")).
// The API root defaults to the region's endpoint; WithBaseURL overrides it
// (a proxy, a private endpoint). Model names are Vertex's, e.g.
// "claude-sonnet-4-5@20250929".
func WithVertex(project, region string, tokens oauth2.TokenSource) Option {
	return func(c *config) {
		c.vertex = &vertexRoute{project: project, region: region, tokens: oauth2.ReuseTokenSource(nil, tokens)}
	}
}

// VertexBaseURL is the API root of a Vertex AI region.
func VertexBaseURL(region string) string {
	switch region {
	case "global":
		return "https://aiplatform.googleapis.com"
	case "us", "eu":
		return "https://aiplatform." + region + ".rep.googleapis.com"
	}
	return "https://" + region + "-aiplatform.googleapis.com"
}

// check reports a route that cannot make a request.
func (v *vertexRoute) check() error {
	switch {
	case v.project == "":
		return errors.New("a Vertex AI route needs a project")
	case v.region == "":
		return errors.New("a Vertex AI route needs a region")
	case v.tokens == nil:
		return errors.New("a Vertex AI route needs credentials (a token source)")
	}
	return nil
}

// route is the request option that moves a Messages call for model to
// its Vertex path and authorises it.
func (v *vertexRoute) route(model string) option.RequestOption {
	return option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		if err := v.check(); err != nil {
			return nil, err
		}
		tok, err := v.tokens.Token()
		if err != nil {
			return nil, fmt.Errorf("getting a token for Vertex AI: %w", err)
		}
		prefix := strings.TrimSuffix(r.URL.Path, "/v1/messages")
		segs := []string{"v1", "projects", v.project, "locations", v.region, "publishers", "anthropic", "models", model + ":streamRawPredict"}
		esc := make([]string, len(segs))
		for i, s := range segs {
			esc[i] = url.PathEscape(s)
		}
		r.URL.Path = prefix + "/" + strings.Join(segs, "/")
		r.URL.RawPath = prefix + "/" + strings.Join(esc, "/")
		r.Header.Del("anthropic-version") // in the body
		r.Header.Del("X-Api-Key")
		r.Header.Set("Authorization", tok.Type()+" "+tok.AccessToken)
		return next(r)
	})
}
