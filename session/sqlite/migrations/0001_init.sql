-- Times are Unix nanoseconds (UTC).

CREATE TABLE sessions (
    id      TEXT    PRIMARY KEY,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    workdir TEXT    NOT NULL DEFAULT '',
    model   TEXT    NOT NULL DEFAULT '',
    title   TEXT    NOT NULL DEFAULT '',
    mode    TEXT    NOT NULL DEFAULT 'default'
);

CREATE INDEX sessions_workdir_updated ON sessions (workdir, updated);
CREATE INDEX sessions_updated ON sessions (updated);

-- One row per message. body is the whole llm.Message as JSON; role is
-- duplicated out of it for queries. The UNIQUE constraint is also the
-- (session_id, seq) index that ordered loads and max(seq) use.
CREATE TABLE messages (
    id         INTEGER PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    role       TEXT    NOT NULL,
    created    INTEGER NOT NULL,
    body       TEXT    NOT NULL,
    UNIQUE (session_id, seq)
);

-- The per-session planning and compaction state (session.State as JSON).
CREATE TABLE session_state (
    session_id TEXT    PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    updated    INTEGER NOT NULL,
    state      TEXT    NOT NULL
);
