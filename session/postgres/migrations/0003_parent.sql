-- A sub-agent's session names the session whose task call started it.
-- '' is a top-level session.
ALTER TABLE harness9.sessions ADD COLUMN parent_id text COLLATE "C" NOT NULL DEFAULT '';

CREATE INDEX sessions_parent ON harness9.sessions (parent_id);
