-- A sub-agent's session names the session whose task call started it.
-- '' is a top-level session.
ALTER TABLE sessions ADD COLUMN parent_id TEXT NOT NULL DEFAULT '';

CREATE INDEX sessions_parent ON sessions (parent_id);
