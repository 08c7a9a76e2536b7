-- File checkpoints for undo: a file's state before a turn first changed
-- it (content, or its absence, and mode) and the hash the agent left.
CREATE TABLE harness9.checkpoints (
    session_id   text    COLLATE "C" NOT NULL REFERENCES harness9.sessions (id) ON DELETE CASCADE,
    turn         integer NOT NULL,
    path         text    NOT NULL,
    prompt       text    NOT NULL DEFAULT '',
    existed      boolean NOT NULL,
    content      bytea   NOT NULL DEFAULT '',
    mode         bigint  NOT NULL DEFAULT 0,
    too_large    boolean NOT NULL DEFAULT false,
    after_exists boolean NOT NULL,
    after_hash   text    NOT NULL DEFAULT '',
    rewound      boolean NOT NULL DEFAULT false,
    created      bigint  NOT NULL,
    PRIMARY KEY (session_id, turn, path)
);
