package fakemodel

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/harness9/harness9/llm/scripted"
)

// Replay is a stand-in that plays scripted turns in order, one per model
// call, on whichever wire the call comes (Chat Completions, Responses,
// Messages): the planning tests' scripts played through the real providers
// and their wire formats. Asked to reason, it reasons before each turn
// and refuses calls that drop that reasoning, as Server does. A turn's
// Text, Reasoning and Calls are played; Err, Usage, Stop and Match are
// not. A call with no turn left is answered 500.
type Replay struct {
	mu       sync.Mutex
	turns    []scripted.Turn
	played   int
	reasoned int
}

// NewReplay returns a Replay of turns.
func NewReplay(turns ...scripted.Turn) *Replay { return &Replay{turns: turns} }

// Remaining is the number of turns not played yet.
func (p *Replay) Remaining() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.turns) - p.played
}

// Reasoned is the number of turns played with reasoning.
func (p *Replay) Reasoned() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reasoned
}

func (p *Replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c, write, ok := decode(w, r)
	if !ok {
		return
	}
	p.mu.Lock()
	if p.played == len(p.turns) {
		p.mu.Unlock()
		http.Error(w, `{"error":{"type":"api_error","message":"the script has no turn left"}}`, http.StatusInternalServerError)
		return
	}
	t, n := p.turns[p.played], p.played
	p.played++
	a := answer{text: t.Text}
	if c.reasoning {
		p.reasoned++
		a.thought = t.Reasoning
		if a.thought == "" {
			a.thought = fmt.Sprintf("Turn %d: thinking it over.", n+1)
		}
	}
	p.mu.Unlock()
	for k, tc := range t.Calls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", n+1, k)
		}
		a.calls = append(a.calls, call{ID: id, Name: tc.Name, Input: tc.Input})
	}
	w.Header().Set("Content-Type", "text/event-stream")
	write(w, c, a)
}
