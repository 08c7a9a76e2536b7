package memstore

import (
	"bytes"
	"cmp"
	"context"
	"slices"

	"github.com/harness9/harness9/session"
)

var _ session.CheckpointStore = (*Store)(nil)

// SaveCheckpoint implements session.CheckpointStore.
func (s *Store) SaveCheckpoint(_ context.Context, sessionID string, c session.Checkpoint) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[sessionID]
	if !ok {
		return notFound(sessionID)
	}
	s.bump(e)
	for i := range e.cps {
		if old := &e.cps[i]; old.Turn == c.Turn && old.Path == c.Path {
			old.AfterExists, old.AfterHash, old.Rewound = c.AfterExists, c.AfterHash, false
			return nil
		}
	}
	c.Content = bytes.Clone(c.Content)
	c.Rewound = false
	if c.Created.IsZero() {
		c.Created = s.now()
	}
	e.cps = append(e.cps, c)
	return nil
}

// Checkpoints implements session.CheckpointStore.
func (s *Store) Checkpoints(_ context.Context, sessionID string) ([]session.Checkpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[sessionID]
	if !ok {
		return nil, notFound(sessionID)
	}
	out := make([]session.Checkpoint, len(e.cps))
	for i, c := range e.cps {
		c.Content = bytes.Clone(c.Content)
		if c.Content == nil {
			c.Content = []byte{}
		}
		out[i] = c
	}
	slices.SortFunc(out, func(a, b session.Checkpoint) int {
		return cmp.Or(cmp.Compare(a.Turn, b.Turn), cmp.Compare(a.Path, b.Path))
	})
	return out, nil
}

// MarkRewound implements session.CheckpointStore.
func (s *Store) MarkRewound(_ context.Context, sessionID string, fromTurn int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sessions[sessionID]
	if !ok {
		return notFound(sessionID)
	}
	s.bump(e)
	for i := range e.cps {
		if e.cps[i].Turn >= fromTurn {
			e.cps[i].Rewound = true
		}
	}
	return nil
}
