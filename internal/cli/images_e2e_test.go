package cli_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// picturePNG writes a w×h PNG to path and returns its bytes.
func picturePNG(t *testing.T, path string, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%h, color.RGBA{200, 10, 10, 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// recorder keeps every request body a model server receives.
type recorder struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (rc *recorder) add(t *testing.T, r *http.Request) int {
	b, _ := io.ReadAll(r.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Errorf("request is not JSON: %v", err)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.bodies = append(rc.bodies, v)
	return len(rc.bodies)
}

func (rc *recorder) get() []map[string]any {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]map[string]any(nil), rc.bodies...)
}

// jsonPath walks v by keys and indexes ("messages", 0, "content" ...).
func jsonPath(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k < 0 {
				k += len(a)
			}
			if k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func openAIServer(t *testing.T, rc *recorder) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.add(t, r)
		// The first call of a session asks for shots/b.png; once a tool
		// result is in the history, the model answers.
		body := rc.get()[len(rc.get())-1]
		first := !strings.Contains(fmt.Sprint(body["messages"]), "role:tool")
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta, finish string) {
			fin := "null"
			if finish != "" {
				fin = `"` + finish + `"`
			}
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n", delta, fin)
		}
		if first {
			chunk(`{"role":"assistant","content":"Let me see the other one."}`, "")
			chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"shots/b.png\"}"}}]}`, "")
			chunk(`{}`, "tool_calls")
		} else {
			chunk(`{"role":"assistant","content":"Both are red lines."}`, "")
			chunk(`{}`, "stop")
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

// Through the binary against a Chat Completions server: the prompt's image
// is an image_url part of the user message, and read_file's image follows
// the tool message as a user message (tool messages carry text only).
func TestImagesOnTheOpenAIWire(t *testing.T) {
	var rc recorder
	srv := openAIServer(t, &rc)
	defer srv.Close()
	h := newHarness(t)
	a := picturePNG(t, filepath.Join(h.workdir, "a.png"), 40, 20)
	b := picturePNG(t, filepath.Join(h.workdir, "shots", "b.png"), 30, 30)
	h.env = append(h.env, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.URL+"/v1")
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/gpt-4o", "--image", filepath.Join(h.workdir, "a.png"), "what is in these?")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := rc.get()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	user := jsonPath(reqs[0], "messages", -1)
	if jsonPath(user, "role") != "user" || jsonPath(user, "content", 0, "type") != "text" ||
		jsonPath(user, "content", 0, "text") != "what is in these?" || jsonPath(user, "content", 1, "type") != "image_url" ||
		jsonPath(user, "content", 1, "image_url", "url") != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(a) {
		t.Fatalf("first request's user message = %v", user)
	}
	msgs := jsonPath(reqs[1], "messages").([]any)
	tool, after := msgs[len(msgs)-2], msgs[len(msgs)-1]
	if jsonPath(tool, "role") != "tool" || jsonPath(tool, "tool_call_id") != "call_1" ||
		!strings.Contains(jsonPath(tool, "content").(string), "Attached shots/b.png") {
		t.Fatalf("tool message = %v", tool)
	}
	if jsonPath(after, "role") != "user" || jsonPath(after, "content", 1, "image_url", "url") != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(b) {
		t.Fatalf("message after the tool result = %v", after)
	}
	// The stored session resumes with its images and shows placeholders.
	id := r.find("session")[0]["session_id"].(string)
	show := h.run("", "sessions", "show", id)
	if !strings.Contains(show.stdout, "[image: a.png 40×20]") || !strings.Contains(show.stdout, "[image: b.png 30×30]") ||
		strings.Contains(show.stdout, base64.StdEncoding.EncodeToString(a)[:40]) {
		t.Fatalf("sessions show:\n%s", show.stdout)
	}
	showJSON := h.run("", "sessions", "show", id, "--json")
	if strings.Contains(showJSON.stdout, base64.StdEncoding.EncodeToString(a)[:40]) || !strings.Contains(showJSON.stdout, `"placeholder": "[image: a.png 40×20]"`) {
		t.Fatalf("sessions show --json:\n%s", showJSON.stdout)
	}
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/gpt-4o", "--resume", id, "and now?")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	reqs = rc.get()
	if got := jsonPath(reqs[2], "messages", 1, "content", 1, "image_url", "url"); got != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(a) {
		t.Fatalf("resumed request lost the prompt's image: %v", jsonPath(reqs[2], "messages", 1))
	}
}

// Through the binary against a Messages API server: image blocks in the
// user message and inside the tool_result.
func TestImagesOnTheAnthropicWire(t *testing.T) {
	var rc recorder
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := rc.add(t, r)
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(data string) {
			var v struct{ Type string }
			_ = json.Unmarshal([]byte(data), &v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v.Type, data)
		}
		send(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`)
		if n == 1 {
			send(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}`)
			send(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"b.png\"}"}}`)
			send(`{"type":"content_block_stop","index":0}`)
			send(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":5}}`)
		} else {
			send(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			send(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Red lines."}}`)
			send(`{"type":"content_block_stop","index":0}`)
			send(`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}`)
		}
		send(`{"type":"message_stop"}`)
	}))
	defer srv.Close()
	h := newHarness(t)
	// An image outside the workdir, named by the user, is allowed.
	aPath := filepath.Join(t.TempDir(), "a.png")
	a := picturePNG(t, aPath, 40, 20)
	b := picturePNG(t, filepath.Join(h.workdir, "b.png"), 30, 30)
	h.env = append(h.env, "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL="+srv.URL)
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "anthropic/claude-sonnet-4-5", "--image", aPath, "describe")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := rc.get()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	user := jsonPath(reqs[0], "messages", 0)
	img := jsonPath(user, "content", 0)
	if jsonPath(img, "type") != "image" || jsonPath(img, "source", "type") != "base64" || jsonPath(img, "source", "media_type") != "image/png" ||
		jsonPath(img, "source", "data") != base64.StdEncoding.EncodeToString(a) || jsonPath(user, "content", 1, "text") != "describe" {
		t.Fatalf("first request's user message = %v", user)
	}
	result := jsonPath(reqs[1], "messages", -1, "content", 0)
	if jsonPath(result, "type") != "tool_result" || jsonPath(result, "tool_use_id") != "toolu_1" ||
		jsonPath(result, "content", 1, "type") != "image" ||
		jsonPath(result, "content", 1, "source", "data") != base64.StdEncoding.EncodeToString(b) {
		t.Fatalf("tool_result = %v", result)
	}
}

// A model without vision: --image is a usage error before any request; a
// config setting can say a model has vision, or that it has not, and then
// read_file on an image gives the model a note instead of the picture.
func TestImagesWithoutVision(t *testing.T) {
	var rc recorder
	srv := openAIServer(t, &rc)
	defer srv.Close()
	h := newHarness(t)
	picturePNG(t, filepath.Join(h.workdir, "a.png"), 4, 4)
	picturePNG(t, filepath.Join(h.workdir, "shots", "b.png"), 4, 4)
	h.env = append(h.env, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.URL+"/v1")
	r := h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/gpt-3.5-turbo", "--image", filepath.Join(h.workdir, "a.png"), "look")
	if r.code != 2 || !strings.Contains(r.stderr, "does not accept images") || !strings.Contains(r.stderr, "vision = true") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if n := len(rc.get()); n != 0 {
		t.Fatalf("%d requests for a refused image", n)
	}
	// Told it has vision, the same model gets the image.
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte("[providers.openai]\nvision = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/gpt-3.5-turbo", "--image", filepath.Join(h.workdir, "a.png"), "look")
	if r.code != 0 || len(rc.get()) != 2 {
		t.Fatalf("with vision = true: exit %d, %d requests\n%s", r.code, len(rc.get()), r.stderr)
	}
	// Told it has none, read_file's image becomes a note.
	if err := os.WriteFile(filepath.Join(h.home, "config.toml"), []byte("[providers.openai]\nvision = false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r = h.run("", "run", "--json", "-C", h.workdir, "-m", "openai/gpt-4o", "look at shots/b.png")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := rc.get()
	last, _ := json.Marshal(reqs[len(reqs)-1])
	if strings.Contains(string(last), "image_url") || !strings.Contains(string(last), "does not accept images") {
		t.Fatalf("request to a model without vision: %s", last)
	}
}

// Images the user names on the command line may come from outside the
// workdir, but never from the deny list, not through a symlink either, and
// only real image files.
func TestImageFlagRefusals(t *testing.T) {
	h := newHarness(t)
	home := strings.TrimPrefix(h.env[0], "HOME=")
	secret := filepath.Join(home, ".ssh", "key.png")
	picturePNG(t, secret, 4, 4)
	own := filepath.Join(h.home, "shot.png") // the harness's data dir
	picturePNG(t, own, 4, 4)
	link := filepath.Join(t.TempDir(), "innocent.png")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	inLink := filepath.Join(h.workdir, "in.png")
	if err := os.Symlink(secret, inLink); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(h.workdir, "notes.png")
	if err := os.WriteFile(text, []byte("not a picture"), 0o600); err != nil {
		t.Fatal(err)
	}
	model := h.script(`{"turns": [{"text": "never"}]}`)
	for _, p := range []string{secret, own, link, inLink, text, h.workdir, filepath.Join(h.workdir, "missing.png")} {
		r := h.run("", "run", "--json", "-C", h.workdir, "-m", model, "--image", p, "look")
		if r.code != 2 || !strings.Contains(r.stderr, "--image") {
			t.Errorf("--image %s: exit %d\n%s", p, r.code, r.stderr)
		}
		if len(r.find("text")) > 0 {
			t.Errorf("--image %s: the model was called", p)
		}
	}
}
