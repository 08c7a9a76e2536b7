package service

import "net/http"

// routesInit registers every route; the OpenAPI document lists the same
// set (a test holds them equal).
func (s *Server) routesInit() {
	s.handle("GET /openapi.json", s.openAPI)
	s.handle("GET /api/sessions", s.authed(s.listSessions))
	s.handle("POST /api/sessions", s.authed(s.createSession))
	s.handle("GET /api/sessions/{id}", s.authed(s.showSession))
	s.handle("GET /api/sessions/{id}/events", s.authed(s.streamEvents))
	s.handle("POST /api/sessions/{id}/prompt", s.authed(s.sendPrompt))
	s.handle("POST /api/sessions/{id}/review", s.authed(s.reviewPlan))
	s.handle("POST /api/sessions/{id}/permissions/{ask}", s.authed(s.answerPermission))
	s.handle("POST /api/sessions/{id}/cancel", s.authed(s.cancelRun))
	s.handle("POST /api/sessions/{id}/continue", s.authed(s.continueRun))

	s.handle("GET /{$}", s.page(s.indexPage))
	s.handle("GET /s/{id}", s.page(s.sessionPage))
	s.handle("GET /s/{id}/plan", s.page(s.planFragment))
	s.handle("GET /login", s.loginForm)
	s.handle("POST /login", s.login)
	s.handle("POST /logout", s.logout)
	s.handle("GET /static/{file}", s.static)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such route: " + pathFor(r) + " (see /openapi.json)"})
	})
}
