-- File checkpoints for undo: a file's state before a turn first changed
-- it (content, or its absence, and mode) and the hash the agent left.
-- Times are Unix nanoseconds (UTC).
CREATE TABLE checkpoints (
    session_id   TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn         INTEGER NOT NULL,
    path         TEXT    NOT NULL,
    prompt       TEXT    NOT NULL DEFAULT '',
    existed      INTEGER NOT NULL,
    content      BLOB,
    mode         INTEGER NOT NULL DEFAULT 0,
    too_large    INTEGER NOT NULL DEFAULT 0,
    after_exists INTEGER NOT NULL,
    after_hash   TEXT    NOT NULL DEFAULT '',
    rewound      INTEGER NOT NULL DEFAULT 0,
    created      INTEGER NOT NULL,
    PRIMARY KEY (session_id, turn, path)
);
