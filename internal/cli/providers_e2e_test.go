package cli_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/harness9/harness9/internal/fakemodel"
)

// modelCall is one request a provider stand-in received.
type modelCall struct {
	path   string
	query  url.Values
	header http.Header
	body   map[string]any
}

// wireLog records the model calls that reach the stand-in model (and
// answers a Google token request, for Vertex AI's credentials); route
// rewrites a cloud's path to the wire the stand-in speaks.
type wireLog struct {
	t     *testing.T
	mu    sync.Mutex
	calls []modelCall
	fake  *fakemodel.Server
	route func(path string) string
}

func newWireLog(t *testing.T) (*wireLog, *httptest.Server) {
	l := &wireLog{t: t, fake: fakemodel.New(), route: func(p string) string { return p }}
	srv := httptest.NewServer(l)
	t.Cleanup(srv.Close)
	return l, srv
}

func (l *wireLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/token" {
		// Google's OAuth token endpoint, for an authorized_user credential.
		if err := r.ParseForm(); err != nil || r.PostForm.Get("refresh_token") != "refresh-me" {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"ya29.vertex-token","token_type":"Bearer","expires_in":3600}`)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	c := modelCall{path: r.URL.Path, query: r.URL.Query(), header: r.Header.Clone()}
	if err := json.Unmarshal(raw, &c.body); err != nil {
		l.t.Errorf("%s: the body is not JSON: %v", r.URL.Path, err)
	}
	l.mu.Lock()
	l.calls = append(l.calls, c)
	l.mu.Unlock()
	r.Body = io.NopCloser(strings.NewReader(string(raw)))
	r.URL.Path = l.route(r.URL.Path)
	l.fake.ServeHTTP(w, r)
}

func (l *wireLog) all() []modelCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]modelCall(nil), l.calls...)
}

func (h *harness) writeConfig(body string) {
	h.t.Helper()
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte(body), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

// sessionOf is the session id a `run --json` reported.
func sessionOf(t *testing.T, r result) string {
	t.Helper()
	for _, e := range r.events {
		if id, ok := e["session_id"].(string); ok && id != "" {
			return id
		}
	}
	t.Fatalf("no session_id in the events: %s", r.stdout)
	return ""
}

// [providers.X] api and reasoning_effort, and --effort over them, reach the
// wire; the reasoning tokens the API reports are counted in the session.
func TestEffortAndResponsesAPIReachTheWire(t *testing.T) {
	log, srv := newWireLog(t)
	h := newHarness(t)
	h.writeConfig("[providers.openai]\napi = \"responses\"\nreasoning_effort = \"low\"\n")
	h.env = append(h.env, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.URL+"/v1")
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/o4-mini", "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	r2 := h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/o4-mini", "--effort", "high", "say hello again")
	if r2.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r2.code, r2.stderr, r2.stdout)
	}
	calls := log.all()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want 2", len(calls))
	}
	for i, want := range []string{"low", "high"} {
		c := calls[i]
		if c.path != "/v1/responses" || jsonPath(c.body, "reasoning", "effort") != want || c.body["store"] != false {
			t.Errorf("call %d: %s %v", i, c.path, c.body)
		}
	}
	show := h.run("", "sessions", "show", sessionOf(t, r2))
	if show.code != 0 || !strings.Contains(show.stdout, " reasoning)") {
		t.Errorf("sessions show does not count the reasoning tokens (exit %d):\n%s%s", show.code, show.stdout, show.stderr)
	}
	// A bad effort is a usage error that names the flag.
	bad := h.run("", "run", "-C", h.workdir, "-m", "openai/o4-mini", "--effort", "max", "x")
	if bad.code != 2 || !strings.Contains(bad.stderr, "--effort") {
		t.Errorf("--effort max: exit %d, %s", bad.code, bad.stderr)
	}
}

// An azure/… model calls the resource's deployment with its api-version and
// key header, never an OpenAI bearer token; api = "responses" moves it to
// the Responses path with the deployment as the model.
func TestAzureDeploymentPathsAndKey(t *testing.T) {
	log, srv := newWireLog(t)
	h := newHarness(t)
	h.env = append(h.env, "AZURE_OPENAI_API_KEY=az-key", "AZURE_OPENAI_ENDPOINT="+srv.URL, "OPENAI_API_KEY=openai-key")
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "azure/my-gpt", "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	h.writeConfig("[providers.azure]\napi = \"responses\"\napi_version = \"2025-03-01-preview\"\n")
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", "azure/my-gpt", "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	calls := log.all()
	if len(calls) != 2 {
		t.Fatalf("%d model calls, want 2", len(calls))
	}
	for i, want := range []struct{ path, version string }{
		{"/openai/deployments/my-gpt/chat/completions", "2025-04-01-preview"},
		{"/openai/responses", "2025-03-01-preview"},
	} {
		c := calls[i]
		if c.path != want.path || c.query.Get("api-version") != want.version {
			t.Errorf("call %d: %s?%s, want %s?api-version=%s", i, c.path, c.query.Encode(), want.path, want.version)
		}
		if c.header.Get("Api-Key") != "az-key" || c.header.Get("Authorization") != "" {
			t.Errorf("call %d: api-key %q, authorization %q", i, c.header.Get("Api-Key"), c.header.Get("Authorization"))
		}
		if c.body["model"] != "my-gpt" {
			t.Errorf("call %d: model %v", i, c.body["model"])
		}
	}
}

// A vertex/… model calls Vertex AI's path for the project, region and
// model with a token from Google's application default credentials, and
// the Vertex body version.
func TestVertexPathAndCredentials(t *testing.T) {
	log, srv := newWireLog(t)
	log.route = func(p string) string {
		if strings.HasSuffix(p, ":streamRawPredict") {
			return "/v1/messages"
		}
		return p
	}
	h := newHarness(t)
	adc := filepath.Join(t.TempDir(), "adc.json")
	cred := fmt.Sprintf(`{"type":"authorized_user","client_id":"cid","client_secret":"cs","refresh_token":"refresh-me","token_uri":%q}`, srv.URL+"/token")
	if err := os.WriteFile(adc, []byte(cred), 0o600); err != nil {
		t.Fatal(err)
	}
	h.env = append(h.env, "GOOGLE_APPLICATION_CREDENTIALS="+adc, "ANTHROPIC_VERTEX_PROJECT_ID=my-proj",
		"CLOUD_ML_REGION=europe-west1", "ANTHROPIC_VERTEX_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=anthropic-key")
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "vertex/claude-sonnet-4-5@20250929", "--effort", "medium", "say hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stderr, r.stdout)
	}
	calls := log.all()
	if len(calls) != 1 {
		t.Fatalf("%d model calls, want 1", len(calls))
	}
	c := calls[0]
	if want := "/v1/projects/my-proj/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict"; c.path != want {
		t.Errorf("path %s, want %s", c.path, want)
	}
	if c.header.Get("Authorization") != "Bearer ya29.vertex-token" || c.header.Get("X-Api-Key") != "" {
		t.Errorf("authorization %q, x-api-key %q", c.header.Get("Authorization"), c.header.Get("X-Api-Key"))
	}
	if c.body["anthropic_version"] != "vertex-2023-10-16" || c.body["model"] != nil || jsonPath(c.body, "thinking", "type") != "enabled" {
		t.Errorf("body %v", c.body)
	}
}

// doctor names the chosen host's set-up and the hosts this binary reaches;
// a bedrock/… model in a build without Bedrock fails with the build
// command.
func TestDoctorNamesTheHosts(t *testing.T) {
	h := newHarness(t)
	h.env = append(h.env, "AZURE_OPENAI_ENDPOINT=https://res.openai.azure.com", "AZURE_OPENAI_API_KEY=az-secret-value",
		"ANTHROPIC_VERTEX_PROJECT_ID=my-proj", "AWS_REGION=eu-west-1")
	r := h.run("", "doctor", "--offline", "-C", h.workdir, "-m", "azure/my-gpt", "--effort", "low")
	if !strings.Contains(r.stdout, "Azure OpenAI · https://res.openai.azure.com · api-version 2025-04-01-preview · key from AZURE_OPENAI_API_KEY is set · reasoning effort low") ||
		!strings.Contains(r.stdout, "vertex (Claude on Google Vertex AI)") || strings.Contains(r.stdout, "az-secret-value") {
		t.Errorf("doctor -m azure/my-gpt:\n%s", r.stdout)
	}
	r = h.run("", "doctor", "--offline", "-C", h.workdir, "-m", "vertex/claude-sonnet-4-5@20250929")
	if !strings.Contains(r.stdout, "Google Vertex AI · project my-proj · region us-east5") {
		t.Errorf("doctor -m vertex/…:\n%s", r.stdout)
	}
	r = h.run("", "doctor", "--offline", "-C", h.workdir, "-m", "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	if r.code != 1 || !strings.Contains(r.stdout, "go build -tags bedrock ./cmd/harness9") {
		t.Errorf("doctor -m bedrock/… without Bedrock: exit %d\n%s", r.code, r.stdout)
	}
	run := h.run("", "run", "-C", h.workdir, "-m", "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "x")
	if run.code != 2 || !strings.Contains(run.stderr, "-tags bedrock") {
		t.Errorf("run -m bedrock/… without Bedrock: exit %d, %s", run.code, run.stderr)
	}
}

// A bedrock/… model, in a build with Bedrock, is signed with the AWS
// credentials of the environment for the region harness9 was given and
// sent to the model's invoke-with-response-stream path. (The answer's
// event-stream framing is tested in llm/anthropic/bedrock.)
func TestBedrockBuildSignsForTheRegion(t *testing.T) {
	log, srv := newWireLog(t)
	h := newHarness(t)
	h.bin = buildBinary(t, "bedrock")
	h.env = append(h.env, "AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret", "AWS_REGION=eu-west-1",
		"AWS_CONFIG_FILE=/nonexistent", "AWS_SHARED_CREDENTIALS_FILE=/nonexistent", "ANTHROPIC_BEDROCK_BASE_URL="+srv.URL)
	model := "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "bedrock/"+model, "--effort", "low", "say hello")
	calls := log.all()
	if len(calls) == 0 {
		t.Fatalf("no request reached the server: exit %d\n%s", r.code, r.stderr)
	}
	c := calls[0]
	if want := "/model/" + model + "/invoke-with-response-stream"; c.path != want {
		t.Errorf("path %s, want %s", c.path, want)
	}
	auth := c.header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") || !strings.Contains(auth, "/eu-west-1/bedrock/aws4_request") ||
		!strings.Contains(auth, "Signature=") || c.header.Get("X-Amz-Date") == "" {
		t.Errorf("Authorization %q, X-Amz-Date %q", auth, c.header.Get("X-Amz-Date"))
	}
	if c.body["anthropic_version"] != "bedrock-2023-05-31" || jsonPath(c.body, "thinking", "type") != "enabled" {
		t.Errorf("body %v", c.body)
	}
}
