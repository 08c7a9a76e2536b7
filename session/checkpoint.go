package session

import (
	"context"
	"time"
)

// Checkpoint is the state of one file before a turn of the agent first
// changed it, and the state the agent left it in. Undo restores Before
// when the file still is as the agent left it.
type Checkpoint struct {
	// Turn numbers the session's changing turns 1, 2, 3 … (a run loop that
	// changed no file gets no number).
	Turn int `json:"turn"`
	// Path is the file, relative to the session's workdir, slash-separated.
	Path string `json:"path"`
	// Prompt is the first line of the prompt that started the turn.
	Prompt string `json:"prompt,omitempty"`
	// Existed reports whether the file existed before the turn changed it;
	// when false, undo deletes it.
	Existed bool `json:"existed"`
	// Content is the file's content before the turn (empty when it did not
	// exist or was too large to keep: see TooLarge).
	Content []byte `json:"-"`
	// Mode is the file's permission bits before the turn.
	Mode uint32 `json:"mode"`
	// TooLarge marks a file over the checkpoint size cap: its content was
	// not kept, so undo leaves it alone and says so.
	TooLarge bool `json:"too_large,omitempty"`
	// AfterExists and AfterHash (hex SHA-256) are what the agent left at
	// the end of its last change in the turn. Undo compares the file with
	// them: a file changed since (by the user) is not touched unless forced.
	AfterExists bool   `json:"after_exists"`
	AfterHash   string `json:"after_hash,omitempty"`
	// Rewound is set once the turn has been undone.
	Rewound bool      `json:"rewound,omitempty"`
	Created time.Time `json:"created"`
}

// CheckpointStore is implemented by stores that keep file checkpoints, so
// the engine can offer undo. It is optional: an engine whose store lacks it
// records nothing and undo says so.
type CheckpointStore interface {
	// SaveCheckpoint records c. The first save of a (session, Turn, Path)
	// keeps its Existed, Content, Mode, TooLarge, Prompt and Created for
	// good; a later save of the same key only replaces AfterExists and
	// AfterHash (and clears Rewound). An unknown session wraps ErrNotFound.
	SaveCheckpoint(ctx context.Context, sessionID string, c Checkpoint) error
	// Checkpoints returns the session's checkpoints ordered by Turn, then
	// Path, contents included.
	Checkpoints(ctx context.Context, sessionID string) ([]Checkpoint, error)
	// MarkRewound sets Rewound on every checkpoint of the turns from turn on.
	MarkRewound(ctx context.Context, sessionID string, fromTurn int) error
}
