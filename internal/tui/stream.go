package tui

import (
	"context"
	"iter"

	tea "charm.land/bubbletea/v2"

	"github.com/harness9/harness9/agent"
)

// startStream runs one engine stream (Run, Approve, Continue, Compact) in a
// goroutine. Events travel over a channel that waitEvent reads one at a
// time, so they reach Update in order and never block it. The stream gets
// its own context: Ctrl+C cancels the turn, and the engine still ends the
// stream with Done, which the transcript shows.
func (m *model) startStream(open func(context.Context) iter.Seq[agent.Event]) tea.Cmd {
	if m.running {
		m.hint = "the agent is already working"
		return nil
	}
	ctx, cancel := context.WithCancel(m.ctx)
	ch := make(chan agent.Event, 64)
	m.gen++
	m.running, m.cancel, m.events = true, cancel, ch
	m.exec, m.stream, m.sawError, m.planFresh = nil, nil, false, false
	m.runMode = m.mode // until SessionStarted says otherwise
	m.startedAt, m.tokensIn, m.tokensOut = m.now(), 0, 0
	m.layout()
	life := m.ctx
	m.streams.Add(1)
	pump := func() {
		defer m.streams.Done()
		defer close(ch)
		for ev := range open(ctx) {
			select {
			case ch <- ev:
			case <-life.Done():
				return // the program is gone; breaking stops the engine
			}
		}
	}
	gen := m.gen
	return tea.Batch(func() tea.Msg {
		go pump()
		return next(gen, ch)
	}, tick(gen))
}

// waitEvent reads the next event of the current stream.
func (m *model) waitEvent() tea.Cmd {
	ch, gen := m.events, m.gen
	if ch == nil {
		return nil
	}
	return func() tea.Msg { return next(gen, ch) }
}

func next(gen int, ch <-chan agent.Event) tea.Msg {
	ev, ok := <-ch
	if !ok {
		return streamEndMsg{gen: gen}
	}
	return streamMsg{gen: gen, ev: ev}
}
