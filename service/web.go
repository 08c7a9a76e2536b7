package service

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/harness9/harness9/llm"
	"github.com/harness9/harness9/planning"
)

//go:embed web/*.html web/app.js web/app.css
var webFiles embed.FS

// pages are built on first use, not at package init: every
// harness9 process links this package, few of them serve a page.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"todoMark": todoMark,
	}).ParseFS(webFiles, "web/*.html"))
})

func todoMark(s planning.TodoStatus) string {
	switch s {
	case planning.TodoCompleted:
		return "✔"
	case planning.TodoInProgress:
		return "▶"
	case planning.TodoCancelled:
		return "⊘"
	}
	return "○"
}

// securityHeaders keeps the page's script to its own file and the page out
// of frames.
func securityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	// same-origin, not no-referrer: with no-referrer a browser sends
	// "Origin: null" on the login form, which sameOrigin must refuse.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// page wraps a web page handler: without a valid login it goes to the
// login form.
func (s *Server) page(h func(w http.ResponseWriter, r *http.Request, p *principal) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		securityHeaders(w)
		p, err := s.authenticate(r)
		if err != nil {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
			return
		}
		if err := h(w, r, p); err != nil {
			var nf *notFoundError
			status := http.StatusInternalServerError
			if errors.As(err, &nf) {
				status = http.StatusNotFound
			} else {
				s.log.ErrorContext(r.Context(), "serve: page failed", "request", pathFor(r), "err", err)
			}
			http.Error(w, err.Error(), status)
		}
	}
}

func (s *Server) render(w http.ResponseWriter, name string, data any) error {
	var b bytes.Buffer
	if err := pages().ExecuteTemplate(&b, name, data); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err := w.Write(b.Bytes())
	return err
}

func (s *Server) indexPage(w http.ResponseWriter, r *http.Request, p *principal) error {
	list, err := s.sessionsFor(r.Context(), p)
	if err != nil {
		return err
	}
	return s.render(w, "index.html", map[string]any{"Sessions": list, "Token": p.name, "CSRF": csrfValue(p.token)})
}

// transcriptLine is one message of the transcript as the page shows it.
type transcriptLine struct {
	Role, Text string
	Calls      []llm.ToolCall
	IsError    bool
}

func transcript(msgs []llm.Message) []transcriptLine {
	var out []transcriptLine
	for _, m := range msgs {
		text := m.Content
		if m.Role == llm.RoleTool && len(text) > 2000 {
			text = text[:2000] + "…"
		}
		out = append(out, transcriptLine{Role: string(m.Role), Text: text, Calls: m.ToolCalls})
	}
	return out
}

func (s *Server) sessionData(ctx context.Context, p *principal, id string) (map[string]any, error) {
	sess, err := s.lookup(ctx, p, id)
	if err != nil {
		return nil, err
	}
	d, err := s.detail(ctx, sess, true)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"S": d, "Lines": transcript(d.Transcript), "CSRF": csrfValue(p.token), "Token": p.name,
		"Awaiting": d.Status == string(planning.StatusAwaitingApproval) && !d.Running}
	if d.Plan != nil {
		data["PlanHTML"] = renderMarkdown(d.Plan.Content)
	}
	return data, nil
}

func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request, p *principal) error {
	data, err := s.sessionData(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.render(w, "session.html", data)
}

// planFragment is the plan section alone, which the page's script fetches
// when a plan arrives: the markdown is rendered here, never in the browser.
func (s *Server) planFragment(w http.ResponseWriter, r *http.Request, p *principal) error {
	data, err := s.sessionData(r.Context(), p, r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.render(w, "plan", data)
}

func (s *Server) loginForm(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	_ = s.render(w, "login.html", map[string]any{"Next": safeNext(r.URL.Query().Get("next"))})
}

// safeNext keeps a post-login redirect on this site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	return next
}

// sameOrigin refuses a form posted from another site (login CSRF).
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true // not a browser's cross-site form post
	}
	u, err := url.Parse(o)
	return err == nil && u.Host == r.Host
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if !sameOrigin(r) {
		http.Error(w, "the login form must be posted from this site", http.StatusForbidden)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the login form is not valid: "+err.Error(), http.StatusBadRequest)
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	probe, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, "/", nil)
	probe.Header.Set("Authorization", "Bearer "+tok)
	if _, err := s.authenticate(probe); tok == "" || err != nil {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_ = pages().ExecuteTemplate(w, "login.html", map[string]any{"Next": safeNext(r.PostForm.Get("next")), "Failed": true})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: tok, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	http.Redirect(w, r, safeNext(r.PostForm.Get("next")), http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	if !sameOrigin(r) {
		http.Error(w, "log out from this site's page", http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

func (s *Server) static(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	types := map[string]string{"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
	ct, ok := types[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	b, err := webFiles.ReadFile("web/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
}
