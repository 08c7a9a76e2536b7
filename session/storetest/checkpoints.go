package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/harness9/harness9/session"
)

// testCheckpoints checks session.CheckpointStore on stores that implement
// it: the first save keeps the prior state, later saves only move what the
// agent left, order is (turn, path), MarkRewound marks from a turn on, and
// deleting the session drops them.
func testCheckpoints(t *testing.T, s session.Store) {
	cs, ok := s.(session.CheckpointStore)
	if !ok {
		t.Skip("the store does not implement session.CheckpointStore")
	}
	ctx := context.Background()
	sess := create(t, s, session.Session{Workdir: "/w"})
	if _, err := cs.Checkpoints(ctx, "nope"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Checkpoints(unknown) = %v, want ErrNotFound", err)
	}
	if err := cs.SaveCheckpoint(ctx, "nope", session.Checkpoint{Turn: 1, Path: "a"}); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("SaveCheckpoint(unknown) = %v, want ErrNotFound", err)
	}
	binary := []byte{0, 1, 2, 0xff, '\n'}
	saves := []session.Checkpoint{
		{Turn: 2, Path: "b.txt", Prompt: "second", Existed: true, Content: binary, Mode: 0o755, AfterExists: true, AfterHash: "h1"},
		{Turn: 1, Path: "z.txt", Prompt: "first", Existed: false, AfterExists: true, AfterHash: "h0"},
		{Turn: 1, Path: "a.txt", Prompt: "first", Existed: true, Content: []byte{}, Mode: 0o644, AfterExists: true, AfterHash: "h2"},
		// A second save of the same file in turn 2: only the after state moves.
		{Turn: 2, Path: "b.txt", Prompt: "other", Existed: false, Content: []byte("x"), Mode: 0o600, AfterExists: false},
	}
	for _, c := range saves {
		if err := cs.SaveCheckpoint(ctx, sess.ID, c); err != nil {
			t.Fatalf("SaveCheckpoint(%d %s): %v", c.Turn, c.Path, err)
		}
	}
	got, err := cs.Checkpoints(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d checkpoints, want 3: %+v", len(got), got)
	}
	order := []string{got[0].Path, got[1].Path, got[2].Path}
	if order[0] != "a.txt" || order[1] != "z.txt" || order[2] != "b.txt" {
		t.Errorf("order = %v, want [a.txt z.txt b.txt] (by turn, then path)", order)
	}
	b := got[2]
	if !b.Existed || !bytes.Equal(b.Content, binary) || b.Mode != 0o755 || b.Prompt != "second" {
		t.Errorf("the first save's prior state was not kept: %+v", b)
	}
	if b.AfterExists || b.AfterHash != "" {
		t.Errorf("the later save's after state was not kept: exists=%v hash=%q", b.AfterExists, b.AfterHash)
	}
	if a := got[0]; a.Content == nil || len(a.Content) != 0 || !a.Existed {
		t.Errorf("an empty prior file must come back as empty, non-nil content: %+v", a)
	}
	if got[0].Created.IsZero() {
		t.Error("Created was not filled")
	}
	if err := cs.MarkRewound(ctx, sess.ID, 2); err != nil {
		t.Fatal(err)
	}
	got, _ = cs.Checkpoints(ctx, sess.ID)
	for _, c := range got {
		if c.Rewound != (c.Turn >= 2) {
			t.Errorf("turn %d %s: Rewound = %v after MarkRewound(2)", c.Turn, c.Path, c.Rewound)
		}
	}
	// A turn recorded again after being rewound is live again.
	if err := cs.SaveCheckpoint(ctx, sess.ID, session.Checkpoint{Turn: 2, Path: "b.txt", AfterExists: true, AfterHash: "h3"}); err != nil {
		t.Fatal(err)
	}
	got, _ = cs.Checkpoints(ctx, sess.ID)
	if got[2].Rewound || got[2].AfterHash != "h3" {
		t.Errorf("a save after a rewind must clear Rewound: %+v", got[2])
	}
	if err := s.Delete(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Checkpoints(ctx, sess.ID); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Checkpoints after Delete = %v, want ErrNotFound", err)
	}
}
