-- A session's planning status and todo counts (planning.Progress's done
-- and total), written by SaveState together with the state, so that
-- listing sessions reads these columns and never the state's JSON, which
-- carries the plan and the compaction summary (often kilobytes each).
ALTER TABLE harness9.sessions
    ADD COLUMN status text NOT NULL DEFAULT '',
    ADD COLUMN todos_done integer NOT NULL DEFAULT 0,
    ADD COLUMN todos_total integer NOT NULL DEFAULT 0;

-- States saved before this migration: done counts the todos whose status
-- is "completed", total every todo ("todos": null counts none). Postgres
-- refuses to read the \u0000 that encoding/json writes for a NUL (in a
-- plan, say), so each becomes \u0020 first: the same length, valid JSON
-- whether or not the backslash was itself escaped, and never in a status.
-- The state is read as json, which, like encoding/json, lets the last of
-- duplicate keys win.
UPDATE harness9.sessions AS s SET
    status = coalesce(j.doc ->> 'status', ''),
    todos_done = t.done,
    todos_total = t.total
FROM harness9.session_state AS st,
    LATERAL (SELECT replace(st.state, '\u0000', '\u0020')::json AS doc) AS j,
    LATERAL (SELECT count(*) FILTER (WHERE e ->> 'status' = 'completed') AS done, count(*) AS total
        FROM json_array_elements(CASE WHEN json_typeof(j.doc -> 'todos') = 'array' THEN j.doc -> 'todos' END) AS e) AS t
WHERE st.session_id = s.id;
