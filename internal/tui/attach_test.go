package tui

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/llm/scripted"
	"github.com/harness9/harness9/picture"
)

func TestImageRefs(t *testing.T) {
	got := imageRefs(`look at @shot.png and '/tmp/a b.jpg' "/x/y.webp" ./z.GIF ~/p.jpeg, not b.png nor @notes.txt`)
	var paths []string
	for _, r := range got {
		paths = append(paths, r.path)
	}
	// '/tmp/a b.jpg' is two words; quoted single-word paths work.
	if want := "shot.png /x/y.webp ./z.GIF"; strings.Join(paths, " ") != want {
		t.Errorf("refs = %q, want %q", strings.Join(paths, " "), want)
	}
}

// @shot.png in a prompt attaches the picture through the loader: the real
// engine sends it to the model, the transcript shows its placeholder, and
// an image the loader refuses is not sent at all.
func TestPromptAttachesImages(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	_ = png.Encode(&buf, image.NewGray(image.Rect(0, 0, 12, 8)))
	if err := os.WriteFile(filepath.Join(dir, "shot.png"), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	p := scripted.New(scripted.Turn{Text: "A grey rectangle.", Match: scripted.HasImages(1)})
	opts := Options{
		NewEngine: func(string) (Engine, error) {
			return agent.New(p, agent.WithModel("m"), agent.WithVision(true), agent.WithWorkdir(dir))
		},
		LoadImage: func(path string) (llm.Image, error) {
			if strings.Contains(path, "secret") {
				return llm.Image{}, errors.New("in a directory harness9 never reads")
			}
			return picture.ReadFile(filepath.Join(dir, path))
		},
		Workdir: dir, ModelLabel: "scripted/m",
	}
	h := newHarness(t, opts, 100, 30)
	h.typeText("what is @shot.png")
	h.key("enter")
	h.waitIdle()
	s := h.screen()
	if !strings.Contains(s, "what is [image: shot.png 12×8]") || !strings.Contains(s, "A grey rectangle.") {
		t.Fatalf("screen:\n%s", s)
	}
	req, _ := p.LastRequest()
	if m := req.Messages[0]; len(m.Images) != 1 || !bytes.Equal(m.Images[0].Data, buf.Bytes()) {
		t.Fatalf("model got %+v", m)
	}
	h.typeText("and @secret.png")
	h.key("enter")
	h.waitIdle()
	if s := h.screen(); !strings.Contains(s, "Image not attached: secret.png") {
		t.Fatalf("screen:\n%s", s)
	}
	if n := len(p.Requests()); n != 1 {
		t.Fatalf("%d model calls; the refused prompt was sent", n)
	}
	if h.m.in.value() != "and @secret.png" {
		t.Errorf("input after a refusal = %q", h.m.in.value())
	}
}

// A model without vision: the engine's refusal is shown, nothing is sent.
func TestPromptImagesWithoutVision(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	_ = png.Encode(&buf, image.NewGray(image.Rect(0, 0, 4, 4)))
	_ = os.WriteFile(filepath.Join(dir, "a.png"), buf.Bytes(), 0o600)
	p := scripted.New(scripted.Turn{Text: "never"})
	h := newHarness(t, Options{
		NewEngine: func(string) (Engine, error) {
			return agent.New(p, agent.WithModel("m"), agent.WithVision(false), agent.WithWorkdir(dir))
		},
		LoadImage: func(path string) (llm.Image, error) { return picture.ReadFile(filepath.Join(dir, path)) },
		Workdir:   dir, ModelLabel: "scripted/m",
	}, 100, 30)
	h.typeText("see @a.png")
	h.key("enter")
	h.waitIdle()
	if s := h.screen(); !strings.Contains(s, "does not accept images") {
		t.Fatalf("screen:\n%s", s)
	}
	if n := len(p.Requests()); n != 0 {
		t.Fatalf("%d model calls", n)
	}
}

func TestUserTextShowsImages(t *testing.T) {
	im := llm.Image{Name: "a.png", Width: 3, Height: 2}
	if got := userText(llm.Message{Content: "look", Images: []llm.Image{im}}); got != "look\n[image: a.png 3×2]" {
		t.Errorf("got %q", got)
	}
	if got := userText(llm.Message{Content: "look at [image: a.png 3×2]", Images: []llm.Image{im}}); got != "look at [image: a.png 3×2]" {
		t.Errorf("got %q", got)
	}
}
