package agent_test

import (
	"bytes"
	"context"
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
)

func testPNG(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 6))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The prompt's images reach the model and the store; read_file on an image
// sends the image back with its result; a fresh store handle (a resumed
// session) loads them byte for byte.
func TestRunWithImages(t *testing.T) {
	pic := testPNG(t)
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "shot.png"})),
			Match: scripted.HasImages(1)},
		scripted.Turn{Text: "Two grey pictures.", Match: scripted.HasImages(2)},
	)
	if err := os.WriteFile(filepath.Join(h.dir, "shot.png"), pic, 0o600); err != nil {
		t.Fatal(err)
	}
	e := h.engine(agent.WithVision(true))
	im := llm.Image{MediaType: "image/png", Data: pic, Name: "p.png", Width: 8, Height: 6}
	evs := drain(t, e.RunWith(context.Background(), "what is this?", agent.RunOptions{Images: []llm.Image{im}}))
	if d := doneOf(evs); d.Status != agent.RunCompleted {
		t.Fatalf("done = %+v", d)
	}
	reqs := h.p.Requests()
	last := reqs[len(reqs)-1].Messages
	if got := last[0].Images; len(got) != 1 || !bytes.Equal(got[0].Data, pic) {
		t.Fatalf("prompt images = %+v", got)
	}
	if got := last[2].Images; last[2].Role != llm.RoleTool || len(got) != 1 || !bytes.Equal(got[0].Data, pic) {
		t.Fatalf("tool result = %+v", last[2])
	}
	stored := h.messages(e.SessionID())
	if len(stored[0].Images) != 1 || !bytes.Equal(stored[0].Images[0].Data, pic) || stored[0].Images[0].Name != "p.png" ||
		len(stored[2].Images) != 1 || !bytes.Equal(stored[2].Images[0].Data, pic) {
		t.Fatalf("stored messages lost their images: %+v", stored[:3])
	}
}

// A model without vision refuses a prompt's images before any model call
// or stored message, and sees a note instead of a read_file image.
func TestNoVision(t *testing.T) {
	pic := testPNG(t)
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "shot.png"}))},
		scripted.Turn{Text: "I cannot see it."},
	)
	if err := os.WriteFile(filepath.Join(h.dir, "shot.png"), pic, 0o600); err != nil {
		t.Fatal(err)
	}
	e := h.engine(agent.WithVision(false))
	evs := drain(t, e.RunWith(context.Background(), "look", agent.RunOptions{Images: []llm.Image{{MediaType: "image/png", Data: pic}}}))
	d := doneOf(evs)
	if d.Status != agent.RunError || !errors.Is(d.Err, agent.ErrNoVision) || !strings.Contains(d.Err.Error(), "vision = true") {
		t.Fatalf("done = %+v", d)
	}
	if n := len(h.p.Requests()); n != 0 {
		t.Fatalf("%d model calls for a refused prompt", n)
	}
	evs = drain(t, e.Run(context.Background(), "read shot.png"))
	if d := doneOf(evs); d.Status != agent.RunCompleted {
		t.Fatalf("done = %+v", d)
	}
	for _, r := range h.p.Requests() {
		for _, m := range r.Messages {
			if len(m.Images) > 0 {
				t.Fatalf("an image reached a model without vision: %+v", m)
			}
		}
	}
	msgs := h.messages(e.SessionID())
	var res llm.Message
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			res = m
		}
	}
	if !strings.Contains(res.Content, "does not accept images") || len(res.Images) > 0 {
		t.Fatalf("tool result = %+v", res)
	}
}

// A session that keeps reading pictures sends only the newest ones: past
// the request's image limit the oldest are left out of the request (each
// such message says so, in the same words every turn) but stay in the
// session.
func TestOldestImagesLeftOutOfRequests(t *testing.T) {
	pic := testPNG(t)
	var turns []scripted.Turn
	for i := range 6 {
		turns = append(turns, scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "shot.png"})),
			Match: scripted.HasImages(min(i, 3))})
	}
	turns = append(turns, scripted.Turn{Text: "seen them", Match: scripted.HasImages(3)})
	h := newHarness(t, turns...)
	if err := os.WriteFile(filepath.Join(h.dir, "shot.png"), pic, 0o600); err != nil {
		t.Fatal(err)
	}
	e := h.engine(agent.WithVision(true), agent.WithRequestImages(3, 0))
	if d := doneOf(drain(t, e.Run(context.Background(), "read it six times"))); d.Status != agent.RunCompleted {
		t.Fatalf("done = %+v", d)
	}
	reqs := h.p.Requests()
	last := reqs[len(reqs)-1].Messages
	var with, without []int
	for i, m := range last {
		if m.Role != llm.RoleTool {
			continue
		}
		if len(m.Images) > 0 {
			with = append(with, i)
		} else if strings.Contains(m.Content, "left out of this request") {
			without = append(without, i)
		}
	}
	if len(with) != 3 || len(without) != 3 || without[2] > with[0] {
		t.Fatalf("tool results with images at %v, left out at %v: want the 3 newest kept", with, without)
	}
	// The same stand-in text in the previous request, so providers reuse
	// its encoding.
	prev := reqs[len(reqs)-2].Messages
	if prev[without[0]].Content != last[without[0]].Content {
		t.Errorf("stand-in changed between requests: %q then %q", prev[without[0]].Content, last[without[0]].Content)
	}
	n := 0
	for _, m := range h.messages(e.SessionID()) {
		n += len(m.Images)
	}
	if n != 6 {
		t.Fatalf("the session holds %d images, want all 6", n)
	}
}

// The byte budget counts too: two pictures over it leave the older out.
func TestRequestImageBytesBudget(t *testing.T) {
	pic := testPNG(t)
	h := newHarness(t,
		scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "shot.png"}))},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "shot.png"})), Match: scripted.HasImages(1)},
		scripted.Turn{Text: "ok", Match: scripted.HasImages(1)},
	)
	if err := os.WriteFile(filepath.Join(h.dir, "shot.png"), pic, 0o600); err != nil {
		t.Fatal(err)
	}
	e := h.engine(agent.WithVision(true), agent.WithRequestImages(0, len(pic)+len(pic)/2))
	if d := doneOf(drain(t, e.Run(context.Background(), "read it twice"))); d.Status != agent.RunCompleted {
		t.Fatalf("done = %+v", d)
	}
	reqs := h.p.Requests()
	n := 0
	for _, m := range reqs[len(reqs)-1].Messages {
		n += len(m.Images)
	}
	if n != 1 {
		t.Fatalf("the last request carried %d images, want 1 within the byte budget", n)
	}
}

// Two prompts attach the same picture (the same bytes, as a client that
// keeps an attachment sends it): once both are left out of a request, each
// stand-in carries its own prompt's text, not the other's.
func TestStandInsKeepTheirOwnMessagesText(t *testing.T) {
	pic := testPNG(t)
	h := newHarness(t,
		scripted.Turn{Text: "a grey picture"},
		scripted.Turn{Calls: scripted.Calls(scripted.Call("read_file", map[string]any{"path": "shot.png"}))},
		scripted.Turn{Text: "seen", Match: scripted.HasImages(1)},
	)
	if err := os.WriteFile(filepath.Join(h.dir, "shot.png"), pic, 0o600); err != nil {
		t.Fatal(err)
	}
	e := h.engine(agent.WithVision(true), agent.WithRequestImages(1, 0))
	im := llm.Image{MediaType: "image/png", Data: pic, Name: "p.png"}
	for _, prompt := range []string{"FIRST: what is this?", "SECOND: delete the build directory, then compare with shot.png"} {
		if d := doneOf(drain(t, e.RunWith(context.Background(), prompt, agent.RunOptions{Images: []llm.Image{im}}))); d.Status != agent.RunCompleted {
			t.Fatalf("done = %+v", d)
		}
	}
	reqs := h.p.Requests()
	var users []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == llm.RoleUser {
			users = append(users, m.Content)
		}
	}
	if len(users) != 2 || !strings.HasPrefix(users[0], "FIRST:") || !strings.HasPrefix(users[1], "SECOND:") {
		t.Fatalf("the model saw the prompts as %q", users)
	}
}
