package mcptool

import "context"

// toolsChanged follows a server's notifications/tools/list_changed: the
// server's tools are listed again in the background, and Generation moves
// on once the new list is in place. Notifications that come while a
// listing runs are folded into one more listing.
func (m *Manager) toolsChanged(s *server) {
	s.mu.Lock()
	if s.refreshing {
		s.again = true
		s.mu.Unlock()
		return
	}
	s.refreshing = true
	s.mu.Unlock()
	go func() {
		// A server may announce a change during its own handshake, before
		// its session and first tool names exist.
		select {
		case <-m.started:
		case <-m.ctx.Done():
			return
		}
		for {
			m.refreshTools(s)
			s.mu.Lock()
			if !s.again || m.ctx.Err() != nil {
				s.refreshing = false
				s.mu.Unlock()
				return
			}
			s.again = false
			s.mu.Unlock()
		}
	}()
}

// refreshTools lists s's tools again and puts the new list in place. A
// tool that is still there keeps its name; a new one claims a name the
// way the first ones did; a failed listing keeps the old tools.
func (m *Manager) refreshTools(s *server) {
	if s.err != nil || s.session == nil {
		return
	}
	ctx, cancel := context.WithTimeout(m.ctx, m.opts.timeout)
	defer cancel()
	next, err := m.listTools(ctx, s, s.session)
	if err != nil {
		return
	}
	m.namesMu.Lock()
	s.mu.Lock()
	old := make(map[string]*mcpTool, len(s.tools))
	for _, t := range s.tools {
		old[t.remote] = t
	}
	for _, t := range next {
		if o, ok := old[t.remote]; ok {
			t.name = o.name
			delete(old, t.remote)
		}
	}
	for _, o := range old {
		delete(m.taken, o.name)
	}
	for _, t := range next {
		if t.name == "" {
			t.name = m.taken.claim(s.name, t.remote)
		}
	}
	s.tools = next
	s.mu.Unlock()
	m.namesMu.Unlock()
	m.gen.Add(1)
}

// forgetPrompts follows notifications/prompts/list_changed: the next
// Prompts lists them again.
func (s *server) forgetPrompts() {
	s.mu.Lock()
	s.promptsOK = false
	s.mu.Unlock()
}

// forgetResources follows notifications/resources/list_changed.
func (s *server) forgetResources() {
	s.mu.Lock()
	s.resourceOK = false
	s.mu.Unlock()
}
