package api

import (
	"context"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// ClusterLab is what the cluster's handlers read; *lab.Lab is one.
type ClusterLab interface {
	Status(ctx context.Context) lab.ClusterStatus
	Events(n int) []live.Event
}

// Healthz is GET /healthz: the server answers (it asks no broker).
func (s *Server) Healthz(w http.ResponseWriter, _ *http.Request) {
	httpx.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// GetCluster is GET /api/cluster: the brokers and whether one answers.
func (s *Server) GetCluster(w http.ResponseWriter, r *http.Request) {
	httpx.WriteJSON(w, http.StatusOK, s.deps.Cluster.Status(r.Context()))
}

// GetEvents is GET /api/events?limit=N: the latest narrated events of the
// whole cluster, oldest first — what the dashboard's timeline shows after
// a reload.
func (s *Server) GetEvents(w http.ResponseWriter, r *http.Request) {
	n, err := paramsOf(r).count("limit", lab.MaxEvents, lab.MaxEvents)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	events := s.deps.Cluster.Events(n)
	if events == nil {
		events = []live.Event{}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"events": events})
}
