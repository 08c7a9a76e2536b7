-- A session's planning status and todo counts (planning.Progress's done
-- and total), written by SaveState together with the state, so that
-- listing sessions reads these columns and never the state's JSON, which
-- carries the plan and the compaction summary (often kilobytes each).
ALTER TABLE sessions ADD COLUMN status TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN todos_done INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN todos_total INTEGER NOT NULL DEFAULT 0;

-- States saved before this migration: done counts the todos whose status
-- is "completed", total every todo ("todos": null counts none).
UPDATE sessions SET
    status = coalesce(st.state ->> '$.status', ''),
    todos_done = (SELECT count(*) FROM json_each(st.state, '$.todos') AS t
        WHERE t.type = 'object' AND t.value ->> '$.status' = 'completed'),
    todos_total = coalesce(json_array_length(st.state, '$.todos'), 0)
FROM session_state AS st WHERE st.session_id = sessions.id;

-- The message count, which AppendMessage raises in the transaction that
-- inserts the message (and takes the new message's seq from), so that a
-- listing reads it from the session's row instead of the messages index.
ALTER TABLE sessions ADD COLUMN msg_count INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET msg_count = (SELECT coalesce(max(seq), 0) FROM messages WHERE session_id = sessions.id);
