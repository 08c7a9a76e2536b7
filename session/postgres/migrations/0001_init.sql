-- Every table lives in the schema harness9, so a database shared with
-- other programs keeps their names and ours apart. Times are Unix
-- nanoseconds (UTC), as in the SQLite store: exact round trips of Go times.
-- Ids are compared byte by byte (COLLATE "C") so that prefix lookups can
-- range-scan the primary key whatever the database's collation.

CREATE TABLE harness9.sessions (
    id        text   COLLATE "C" PRIMARY KEY,
    created   bigint NOT NULL,
    updated   bigint NOT NULL,
    workdir   text   NOT NULL DEFAULT '',
    model     text   NOT NULL DEFAULT '',
    title     text   NOT NULL DEFAULT '',
    mode      text   NOT NULL DEFAULT 'default',
    -- The number of messages, which is also the last message's seq. An
    -- append increments it in the same statement that inserts the message,
    -- holding the session row's lock, so concurrent appends from any host
    -- get consecutive sequence numbers.
    msg_count integer NOT NULL DEFAULT 0
);

CREATE INDEX sessions_workdir_updated ON harness9.sessions (workdir, updated DESC);
CREATE INDEX sessions_updated ON harness9.sessions (updated DESC);

-- body is the whole llm.Message as JSON text (not jsonb, which would
-- reorder the keys of a tool call's arguments).
CREATE TABLE harness9.messages (
    session_id text    COLLATE "C" NOT NULL REFERENCES harness9.sessions (id) ON DELETE CASCADE,
    seq        integer NOT NULL,
    role       text    NOT NULL,
    created    bigint  NOT NULL,
    body       text    NOT NULL,
    PRIMARY KEY (session_id, seq)
);

-- The per-session planning and compaction state (session.State as JSON).
CREATE TABLE harness9.session_state (
    session_id text   COLLATE "C" PRIMARY KEY REFERENCES harness9.sessions (id) ON DELETE CASCADE,
    updated    bigint NOT NULL,
    state      text   NOT NULL
);

-- Who holds a session's advisory lock, for the message another process
-- shows. The lock itself is the advisory lock; a row is only believed
-- while its backend_pid is the lock's holder.
CREATE TABLE harness9.session_locks (
    session_id  text    COLLATE "C" PRIMARY KEY,
    backend_pid integer NOT NULL,
    pid         integer NOT NULL,
    host        text    NOT NULL,
    acquired    bigint  NOT NULL
);
