-- Usage for reports (harness9 stats, the totals of sessions show): what
-- each session used per hour (Unix hours) and model, added to as it is
-- recorded, so that a report reads one row per session-hour rather than
-- one per message.
CREATE TABLE session_usage (
    session_id         TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    hour               INTEGER NOT NULL,
    model              TEXT    NOT NULL,
    -- The session's workdir and parent, copied from its row (they never
    -- change) so that a report reads this table alone.
    workdir            TEXT    NOT NULL DEFAULT '',
    parent_id          TEXT    NOT NULL DEFAULT '',
    model_calls        INTEGER NOT NULL DEFAULT 0,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    tool_calls         INTEGER NOT NULL DEFAULT 0,
    plans_submitted    INTEGER NOT NULL DEFAULT 0,
    plans_approved     INTEGER NOT NULL DEFAULT 0,
    plans_refined      INTEGER NOT NULL DEFAULT 0,
    plans_cancelled    INTEGER NOT NULL DEFAULT 0,
    plans_stalled      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, hour, model)
);

CREATE INDEX session_usage_hour ON session_usage (hour);
-- A session's report (sessions show) reads its rows and its sub-agents'.
CREATE INDEX session_usage_parent ON session_usage (parent_id);
