package api

import (
	"net/http"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// Healthz is GET /healthz: the server answers (it asks no broker).
func (s *Server) Healthz(w http.ResponseWriter, _ *http.Request) {
	httpx.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// GetCluster is GET /api/cluster: the brokers and whether one answers.
func (s *Server) GetCluster(w http.ResponseWriter, r *http.Request) {
	httpx.WriteJSON(w, http.StatusOK, s.deps.Lab.Status(r.Context()))
}

// GetEvents is GET /api/events?limit=N: the latest narrated events of the
// whole cluster, oldest first — what the dashboard's timeline shows after
// a reload.
func (s *Server) GetEvents(w http.ResponseWriter, r *http.Request) {
	n := lab.MaxEvents
	if v := r.URL.Query().Get("limit"); v != "" {
		m, err := strconv.Atoi(v)
		if err != nil || m < 1 {
			s.writeError(w, r, problem.New(problem.Invalid, "error.limitInvalid", "limit", v))
			return
		}
		n = min(m, lab.MaxEvents)
	}
	events := s.deps.Lab.Events(n)
	if events == nil {
		events = []live.Event{}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"events": events})
}
