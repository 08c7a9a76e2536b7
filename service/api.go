package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harness9/harness9/agent"
	"github.com/harness9/harness9/internal/lib/eventjson"
	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
	"github.com/harness9/harness9/session"
)

// lookup returns session id if the caller's roots reach it. A session
// outside them is reported as missing, so a token cannot learn what other
// roots hold.
func (s *Server) lookup(ctx context.Context, p *principal, id string) (session.Session, error) {
	missing := &notFoundError{fmt.Sprintf("no session %q in the roots of token %q", id, p.name)}
	if id == "" || len(id) > 128 {
		return session.Session{}, missing
	}
	sess, err := s.store.Get(ctx, id)
	if errors.Is(err, session.ErrNotFound) || errors.Is(err, session.ErrAmbiguous) {
		return session.Session{}, missing
	}
	if err != nil {
		return session.Session{}, err
	}
	// The full id, not a prefix: a prefix would let a token probe the ids
	// of other roots' sessions.
	if sess.ID != id || !p.allows(sess.Workdir) {
		return session.Session{}, missing
	}
	return sess, nil
}

// openFor authorises and opens session id for an action.
func (s *Server) openFor(r *http.Request, p *principal) (*live, error) {
	sess, err := s.lookup(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return s.open(r.Context(), sess.ID)
}

// SessionInfo is a session as the API lists it.
type SessionInfo struct {
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Workdir  string    `json:"workdir"`
	Model    string    `json:"model"`
	Mode     string    `json:"mode"`
	Status   string    `json:"status"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Done     int       `json:"todos_done"`
	Total    int       `json:"todos_total"`
	Running  bool      `json:"running"`
	Messages int       `json:"message_count"`
	// LastRun is how the newest run this server process drove ended
	// (completed, stalled, cancelled, max_turns, error, awaiting_approval);
	// absent when it drove none. Status returns to idle when a plan
	// completes; this keeps the outcome.
	LastRun string `json:"last_run,omitempty"`
	// QueuePosition is the place of the session's run in the queue of
	// runs waiting for a slot (1 is next); absent when it waits for none.
	QueuePosition int `json:"queue_position,omitempty"`
}

// SessionDetail is one session with its plan, todos and transcript.
type SessionDetail struct {
	SessionInfo
	Plan        *planning.Plan      `json:"plan"`
	Todos       []planning.TodoItem `json:"todos"`
	Asks        []any               `json:"permission_asks"`
	LastEventID string              `json:"last_event_id"`
	Transcript  []llm.Message       `json:"messages,omitempty"`
}

// liveState is whether the server runs session id now and how its newest
// run ended, as far as this process knows.
func (s *Server) liveState(id string) (running bool, lastRun string) {
	s.mu.Lock()
	l := s.sessions[id]
	s.mu.Unlock()
	if l == nil {
		return false, ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running, l.lastRun
}

func (s *Server) infoOf(sum session.Summary) SessionInfo {
	sess := sum.Session
	running, lastRun := s.liveState(sess.ID)
	return SessionInfo{ID: sess.ID, Title: sess.Title, Workdir: sess.Workdir, Model: sess.Model, Mode: sess.Mode.String(),
		Status: string(sum.Status), Created: sess.Created, Updated: sess.Updated, Done: sum.TodosDone, Total: sum.TodosTotal,
		Running: running, Messages: sess.MessageCount, LastRun: lastRun, QueuePosition: s.slots.position(sess.ID)}
}

// sessionsFor lists the sessions the caller's roots reach.
func (s *Server) sessionsFor(ctx context.Context, p *principal) ([]SessionInfo, error) {
	list, err := s.store.ListSummaries(ctx, session.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := []SessionInfo{}
	for _, l := range list {
		if p.allows(l.Session.Workdir) {
			out = append(out, s.infoOf(l))
		}
	}
	return out, nil
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request, p *principal) error {
	list, err := s.sessionsFor(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"sessions": list})
	return nil
}

// detail reads a session's stored state and what the server holds of it.
func (s *Server) detail(ctx context.Context, sess session.Session, withMessages bool) (SessionDetail, error) {
	st, err := s.store.LoadState(ctx, sess.ID)
	if err != nil {
		return SessionDetail{}, err
	}
	l := s.liveFor(sess.ID)
	if s.detached() {
		// The asks wait in the session's workflow, which this process
		// may not follow yet: open it (and attach to its work).
		if opened, err := s.open(ctx, sess.ID); err == nil {
			l = opened
		}
	}
	d := SessionDetail{SessionInfo: s.infoOf(session.Summarize(sess, st)), Plan: st.Plan,
		Todos: eventjson.TodoItems(st.Todos), Asks: []any{}, LastEventID: l.hub.last()}
	for _, a := range l.pendingAsks(ctx) {
		d.Asks = append(d.Asks, askObject(a))
	}
	if withMessages {
		if d.Transcript, err = s.store.Messages(ctx, sess.ID); err != nil {
			return SessionDetail{}, err
		}
	}
	return d, nil
}

func (s *Server) showSession(w http.ResponseWriter, r *http.Request, p *principal) error {
	sess, err := s.lookup(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	d, err := s.detail(r.Context(), sess, r.URL.Query().Get("messages") != "0")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, d)
	return nil
}

// CreateRequest is the body of POST /api/sessions.
type CreateRequest struct {
	Workdir string `json:"workdir"`
	Mode    string `json:"mode"`
	Title   string `json:"title"`
	Prompt  string `json:"prompt"`
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request, p *principal) error {
	var req CreateRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if req.Workdir == "" {
		return badReq("workdir is required: an absolute path inside one of the token's roots (%s)", strings.Join(p.roots, ", "))
	}
	dir, err := resolveDir(req.Workdir)
	if err != nil {
		return badReq("workdir: %v", err)
	}
	if !withinAny(dir, s.roots) || !p.allows(dir) {
		return badReq("workdir %s is outside the roots of token %q (%s)", req.Workdir, p.name, strings.Join(p.roots, ", "))
	}
	mode, err := planning.ParseMode(req.Mode)
	if err != nil {
		return badReq("mode: %v", err)
	}
	if err := checkText("prompt", req.Prompt, false); err != nil {
		return err
	}
	if err := checkText("title", req.Title, false); err != nil {
		return err
	}
	title := req.Title
	if title == "" {
		title = req.Prompt
	}
	if !s.accepting() {
		return conflict("the server is shutting down; retry after it restarts")
	}
	// The prompt's run slot first: a full queue refuses the request
	// before a session is made.
	var slot *ticket
	if req.Prompt != "" && !s.detached() {
		if slot, err = s.slots.take(p.name, ""); err != nil {
			return err
		}
	}
	sess, err := s.runner.Create(r.Context(), dir, mode, title)
	if err != nil {
		if slot != nil {
			s.slots.give(slot)
		}
		return fmt.Errorf("create a session: %w", err)
	}
	l := s.adopt(sess)
	if req.Prompt != "" {
		s.slots.name(slot, sess.ID())
		if _, err := l.beginWith(slot); err != nil {
			return err
		}
		prompt := strings.TrimSpace(req.Prompt)
		if err := l.start(r.Context(), func(ctx context.Context) iter.Seq[agent.Event] { return sess.Run(ctx, mode, prompt) }); err != nil {
			return err
		}
	}
	stored, err := s.store.Get(r.Context(), sess.ID())
	if err != nil {
		return err
	}
	d, err := s.detail(r.Context(), stored, false)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, d)
	return nil
}

// accepting reports whether sessions may still be opened and runs started.
func (s *Server) accepting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.closing
}

// checkText validates a text field.
func checkText(name, v string, required bool) error {
	switch {
	case required && strings.TrimSpace(v) == "":
		return badReq("%s is required and must not be blank", name)
	case !utf8.ValidString(v):
		return badReq("%s is not valid UTF-8", name)
	case len(v) > DefaultMaxPrompt:
		return badReq("%s is %d bytes; the limit is %d", name, len(v), DefaultMaxPrompt)
	}
	return nil
}

// PromptRequest is the body of POST /api/sessions/{id}/prompt.
type PromptRequest struct {
	Prompt string `json:"prompt"`
	// Mode is the mode of this run; "" keeps the session's.
	Mode string `json:"mode"`
}

func (s *Server) sendPrompt(w http.ResponseWriter, r *http.Request, p *principal) error {
	var req PromptRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	if err := checkText("prompt", req.Prompt, true); err != nil {
		return err
	}
	var mode *planning.Mode
	if req.Mode != "" {
		m, err := planning.ParseMode(req.Mode)
		if err != nil {
			return badReq("mode: %v", err)
		}
		mode = &m
	}
	prompt := strings.TrimSpace(req.Prompt)
	return s.startRun(w, r, p, func(sess Session) (func(context.Context) iter.Seq[agent.Event], map[string]string, error) {
		m := sess.Snapshot().Mode
		if mode != nil {
			m = *mode
		}
		run := func(ctx context.Context) iter.Seq[agent.Event] { return sess.Run(ctx, m, prompt) }
		return run, map[string]string{"status": "running", "mode": m.String()}, nil
	})
}

// startRun begins a run on the caller's session and answers 202 Accepted
// with reply once it has started. prepare chooses what the run does, or
// refuses it before it starts (the session is then left as it was).
func (s *Server) startRun(w http.ResponseWriter, r *http.Request, p *principal,
	prepare func(Session) (run func(context.Context) iter.Seq[agent.Event], reply map[string]string, err error)) error {
	l, err := s.openFor(r, p)
	if err != nil {
		return err
	}
	sess, err := l.begin(p.name)
	if err != nil {
		return err
	}
	run, reply, err := prepare(sess)
	if err != nil {
		l.end()
		return err
	}
	if err := l.start(r.Context(), run); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, reply)
	return nil
}

// ReviewRequest is the body of POST /api/sessions/{id}/review.
type ReviewRequest struct {
	Choice   string `json:"choice"`
	Feedback string `json:"feedback"`
}

func (s *Server) reviewPlan(w http.ResponseWriter, r *http.Request, p *principal) error {
	var req ReviewRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	choice, ok := reviewChoices[req.Choice]
	if !ok {
		return badReq("choice must be one of %s, not %q", choiceNames(), req.Choice)
	}
	if err := checkText("feedback", req.Feedback, false); err != nil {
		return err
	}
	l, err := s.openFor(r, p)
	if err != nil {
		return err
	}
	if err := l.review(r.Context(), p.name, choice, strings.TrimSpace(req.Feedback)); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"choice": req.Choice})
	return nil
}

// PermissionRequest is the body of POST /api/sessions/{id}/permissions/{ask}.
type PermissionRequest struct {
	Answer string `json:"answer"`
	Reason string `json:"reason"`
}

func (s *Server) answerPermission(w http.ResponseWriter, r *http.Request, p *principal) error {
	var req PermissionRequest
	if err := s.decode(w, r, &req); err != nil {
		return err
	}
	switch req.Answer {
	case "allow", "always", "deny":
	default:
		return badReq("answer must be allow, always or deny, not %q", req.Answer)
	}
	if err := checkText("reason", req.Reason, false); err != nil {
		return err
	}
	l, err := s.openFor(r, p)
	if err != nil {
		return err
	}
	if err := l.answer(r.Context(), r.PathValue("ask"), req.Answer, req.Reason); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"answer": req.Answer})
	return nil
}

func (s *Server) cancelRun(w http.ResponseWriter, r *http.Request, p *principal) error {
	sess, err := s.lookup(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	l := s.liveFor(sess.ID)
	if s.detached() {
		// The work may be a workflow this process never started.
		if l, err = s.open(r.Context(), sess.ID); err != nil {
			return err
		}
	}
	if err := l.stop(r.Context()); err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"status": "cancelling"})
	return nil
}

func (s *Server) continueRun(w http.ResponseWriter, r *http.Request, p *principal) error {
	return s.startRun(w, r, p, func(sess Session) (func(context.Context) iter.Seq[agent.Event], map[string]string, error) {
		if snap := sess.Snapshot(); snap.Next != planning.StepContinue {
			return nil, nil, conflict("session %s has no approved plan to continue (status %s)", sess.ID(), snap.Status)
		}
		return sess.Continue, map[string]string{"status": "running"}, nil
	})
}

// streamEvents sends a session's events as Server-Sent Events: one event
// per message, its JSON object the same as `run --json` prints, numbered
// for Last-Event-ID.
func (s *Server) streamEvents(w http.ResponseWriter, r *http.Request, p *principal) error {
	sess, err := s.lookup(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	if s.detached() {
		// Attach to work the workers do, so its events reach the ring;
		// a server shutting down streams what it has.
		_, _ = s.open(r.Context(), sess.ID)
	}
	l, unwatch := s.watch(sess.ID)
	defer unwatch()
	if n := l.streams(); s.limits.MaxStreams > 0 && n > s.limits.MaxStreams {
		return &tooManyError{msg: fmt.Sprintf("session %s has %d event streams connected already (limit %d, [serve] max_streams_per_session); close one or retry later",
			l.id, n-1, s.limits.MaxStreams), after: 10 * time.Second}
	}
	h := l.hub
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("last_event_id")
	}
	// Without a Last-Event-ID the ring is replayed: a client that
	// created a session with a prompt misses nothing of its first run.
	// The show endpoint's last_event_id starts a stream from now.
	cursor := h.cursor(last)
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "retry: 1000\n\n")
	_ = rc.Flush()
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		// Shutdown closes quit once the runs it cancelled have ended and
		// published their last events (done cancelled, the state): seen
		// closed before the events are read, quit means they are among
		// them, so the stream sends them and ends. (Read the other way
		// round, a done published between the read and the look at quit
		// was lost.)
		closing := false
		select {
		case <-s.quit:
			closing = true
		default:
		}
		entries, changed := h.after(cursor)
		for _, e := range entries {
			if _, err := fmt.Fprintf(w, "id: %s\nevent: %s\ndata: %s\n\n", h.id(e.seq), e.typ, e.data); err != nil {
				return nil
			}
			cursor = e.seq
		}
		if err := rc.Flush(); err != nil {
			return nil
		}
		if closing {
			return nil
		}
		select {
		case <-changed:
		case <-keepAlive.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return nil
			}
		case <-r.Context().Done():
			return nil
		case <-s.quit: // once more round the loop: what is left, then return
		}
	}
}
