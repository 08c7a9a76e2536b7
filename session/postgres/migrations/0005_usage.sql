-- Usage for reports (harness9 stats, the totals of sessions show): what
-- each session used per hour (Unix hours) and model, added to as it is
-- recorded, so that a report reads one row per session-hour rather than
-- one per message.
CREATE TABLE harness9.session_usage (
    session_id         text COLLATE "C" NOT NULL REFERENCES harness9.sessions (id) ON DELETE CASCADE,
    hour               bigint  NOT NULL,
    model              text    NOT NULL,
    -- The session's workdir and parent, copied from its row (they never
    -- change) so that a report reads this table alone.
    workdir            text    NOT NULL DEFAULT '',
    parent_id          text    COLLATE "C" NOT NULL DEFAULT '',
    model_calls        integer NOT NULL DEFAULT 0,
    input_tokens       bigint  NOT NULL DEFAULT 0,
    output_tokens      bigint  NOT NULL DEFAULT 0,
    cache_read_tokens  bigint  NOT NULL DEFAULT 0,
    cache_write_tokens bigint  NOT NULL DEFAULT 0,
    tool_calls         integer NOT NULL DEFAULT 0,
    plans_submitted    integer NOT NULL DEFAULT 0,
    plans_approved     integer NOT NULL DEFAULT 0,
    plans_refined      integer NOT NULL DEFAULT 0,
    plans_cancelled    integer NOT NULL DEFAULT 0,
    plans_stalled      integer NOT NULL DEFAULT 0,
    PRIMARY KEY (session_id, hour, model)
);

CREATE INDEX session_usage_hour ON harness9.session_usage (hour);
-- A session's report (sessions show) reads its rows and its sub-agents'.
CREATE INDEX session_usage_parent ON harness9.session_usage (parent_id);
