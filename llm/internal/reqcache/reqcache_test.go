package reqcache

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/harness9/harness9/llm"
)

// counter is an encoder that counts its calls.
type counter struct{ n int }

func (c *counter) enc(m llm.Message) (string, error) {
	c.n++
	s := m.Content + "|" + m.ToolCallID + "|" + m.Name + "|" + strconv.FormatBool(m.IsError)
	for _, tc := range m.ToolCalls {
		s += "|" + tc.ID + ":" + tc.Name + ":" + string(tc.Input)
	}
	for _, im := range m.Images {
		s += "|" + im.MediaType + ":" + string(im.Data)
	}
	return s, nil
}

func TestMessagesEncodeOnce(t *testing.T) {
	var c Messages[string]
	var n counter
	hist := []llm.Message{{Role: llm.RoleUser, Content: "a"}, {Role: llm.RoleAssistant, Content: "b"}}
	for _, unchanged := range []int{0, 2, 0} {
		values(open(t, &c, hist, unchanged, n.enc))
	}
	if n.n != 2 {
		t.Errorf("encoded %d times, want each message once", n.n)
	}
	// The same messages in a new array (a history rebuilt or moved by a
	// growing append) are found at their positions, not encoded again.
	moved := append([]llm.Message(nil), hist...)
	values(open(t, &c, append(moved, llm.Message{Role: llm.RoleUser, Content: "c"}), 0, n.enc))
	if n.n != 3 {
		t.Errorf("encoded %d times after the history moved, want 3", n.n)
	}
}

// Many one-off conversations: the cache follows only the last few.
func TestMessagesForgetOldConversations(t *testing.T) {
	var c Messages[string]
	var n counter
	for i := range 200 {
		values(open(t, &c, []llm.Message{{Role: llm.RoleUser, Content: strconv.Itoa(i)}}, 0, n.enc))
	}
	if got := c.Lanes(); got > maxLanes {
		t.Errorf("the cache follows %d conversations, want at most %d", got, maxLanes)
	}
	// A conversation another one interrupts for a while is kept; one left
	// for longer than staleCalls is not.
	main := []llm.Message{{Role: llm.RoleUser, Content: "main"}}
	other := []llm.Message{{Role: llm.RoleUser, Content: "sub-agent"}}
	values(open(t, &c, main, 0, n.enc))
	before := n.n
	for range staleCalls - 1 {
		values(open(t, &c, other, 1, n.enc))
	}
	values(open(t, &c, main, 1, n.enc))
	if n.n != before+1 {
		t.Fatalf("encoded %d times, want only the sub-agent's message", n.n-before)
	}
	for range staleCalls + 1 {
		values(open(t, &c, other, 1, n.enc))
	}
	if c.Lanes() != 1 {
		t.Errorf("the cache follows %d conversations, want only the one in use", c.Lanes())
	}
}

// A conversation whose array is gone is forgotten at the next call: the
// cache does not keep a dropped history alive, and a new array at the same
// address is not taken for the old one.
func TestMessagesForgetDroppedArrays(t *testing.T) {
	var c Messages[string]
	var n counter
	func() {
		hist := make([]llm.Message, 1, 8)
		hist[0] = llm.Message{Role: llm.RoleUser, Content: "dropped"}
		values(open(t, &c, hist, 0, n.enc))
	}()
	if c.Lanes() != 1 {
		t.Fatalf("lanes = %d", c.Lanes())
	}
	runtime.GC()
	runtime.GC()
	values(open(t, &c, []llm.Message{{Role: llm.RoleUser, Content: "new"}}, 0, n.enc))
	if c.Lanes() != 1 {
		t.Errorf("the dropped conversation is still followed: %d lanes", c.Lanes())
	}
}

// An image changed in place, or replaced by one of the same size, is
// encoded again; an unchanged one is not.
func TestMessagesNoticeImageChanges(t *testing.T) {
	var c Messages[string]
	var n counter
	data := []byte("PNGDATA")
	hist := []llm.Message{{Role: llm.RoleUser, Content: "look", Images: []llm.Image{{MediaType: "image/png", Data: data}}}}
	for range 2 {
		values(open(t, &c, hist, 0, n.enc))
	}
	if n.n != 1 {
		t.Fatalf("encoded %d times", n.n)
	}
	data[0] = 'X'
	if out := values(open(t, &c, hist, 0, n.enc)); n.n != 2 || !strings.HasSuffix(out[0], "XNGDATA") {
		t.Fatalf("in-place change not noticed: %d %q", n.n, out[0])
	}
	hist[0].Images[0].MediaType = "image/jpeg"
	if values(open(t, &c, hist, 0, n.enc)); n.n != 3 {
		t.Fatal("media type change not noticed")
	}
}

// A message changed in place after a call is encoded again, whichever
// field changed, unless the caller promised it unchanged; one rebuilt
// with equal contents at new addresses is not.
func TestMessagesNoticeChangesInPlace(t *testing.T) {
	var c Messages[string]
	var n counter
	hist := []llm.Message{
		{Role: llm.RoleAssistant, Content: "calling", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "read_file", Input: []byte(`{"path":"a"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Name: "read_file", Content: "text of a"},
	}
	check := func(step string, unchanged, wantEncoded int) {
		t.Helper()
		out := values(open(t, &c, hist, unchanged, n.enc))
		made := n.n
		for i := range hist {
			want, _ := n.enc(hist[i])
			if out[i] != want && unchanged == 0 {
				t.Fatalf("%s: message %d encoded as %q, want %q", step, i, out[i], want)
			}
		}
		n.n = made
		if n.n != wantEncoded {
			t.Fatalf("%s: %d encodings made, want %d", step, n.n, wantEncoded)
		}
	}
	check("first call", 0, 2)
	check("unchanged", 0, 2)
	check("promised", 2, 2)
	hist[0].ToolCalls[0].Input[10] = 'b' // the input's bytes, in place
	check("input changed in place", 0, 3)
	hist[0].ToolCalls[0].ID = string([]byte("c1")) // equal text, new address
	check("id rebuilt equal", 0, 3)
	hist[0].ToolCalls[0].Name = "glob"
	check("name changed", 0, 4)
	hist[1].IsError = true
	check("flag changed", 0, 5)
	hist[1].Content = strings.Clone(hist[1].Content) // equal text, new address
	check("content rebuilt equal", 0, 5)
	hist[1].Content = "text of b"
	check("content changed", 0, 6)
	// A promise is taken at its word: the messages it covers are not
	// looked at (the caller broke it here, to show that), the rest are.
	hist[0].Content = "changed under a promise"
	hist[1].Content = "text of c"
	check("promised the first", 1, 7)
	check("no promise", 0, 8)
}

// Conversations sharing one cache from several goroutines (sub-agents on
// one provider) each get their own messages' encodings, with or without a
// promise, and the same array sent from two goroutines at once is encoded
// right for both.
func TestMessagesConcurrentConversations(t *testing.T) {
	var c Messages[string]
	enc := func(m llm.Message) (string, error) { return m.Content, nil }
	shared := []llm.Message{{Role: llm.RoleUser, Content: "shared"}, {Role: llm.RoleAssistant, Content: "array"}}
	done := make(chan error)
	for g := range 6 {
		go func() {
			var hist []llm.Message
			for i := range 300 {
				msgs, unchanged := shared, 0
				if g < 4 {
					if g%2 == 1 && cap(hist) > len(hist) {
						unchanged = len(hist) // promised half the time, when the array stays
					}
					hist = append(hist, llm.Message{Role: llm.RoleUser, Content: strconv.Itoa(g) + "/" + strconv.Itoa(i)})
					msgs = hist
				}
				k, _, err := c.Open(msgs, unchanged, enc)
				if err == nil && k.Len() != len(msgs) {
					err = fmt.Errorf("goroutine %d: %d encodings for %d messages", g, k.Len(), len(msgs))
				}
				for j := 0; err == nil && j < k.Len(); j++ {
					if k.At(j) != msgs[j].Content {
						err = fmt.Errorf("goroutine %d: message %d encoded as %q, want %q", g, j, k.At(j), msgs[j].Content)
					}
				}
				if k != nil {
					k.Close()
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 6 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

// An encode error leaves nothing unconfirmed behind: a later promise does
// not cover the message that failed or those after it.
func TestMessagesEncodeErrorKeepsNothingUnchecked(t *testing.T) {
	var c Messages[string]
	fail := false
	enc := func(m llm.Message) (string, error) {
		if fail && m.Content == "bad" {
			return "", fmt.Errorf("cannot encode")
		}
		return m.Content, nil
	}
	hist := []llm.Message{{Role: llm.RoleUser, Content: "a"}, {Role: llm.RoleUser, Content: "b"}, {Role: llm.RoleUser, Content: "c"}}
	values(open(t, &c, hist, 0, enc))
	hist[1].Content, hist[2].Content = "bad", "c2"
	fail = true
	if _, i, err := c.Open(hist, 1, enc); err == nil || i != 1 {
		t.Fatalf("Open = %d, %v; want message 1's error", i, err)
	}
	fail = false
	// The caller's previous request is the failed one: it promises every
	// message it sent then, unchanged since.
	if out := values(open(t, &c, hist, 3, enc)); out[1] != "bad" || out[2] != "c2" {
		t.Fatalf("after a failed call: %q", out)
	}
}
