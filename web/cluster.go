package web

import "net/http"

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// getCluster is GET /api/cluster: the brokers and whether one answers.
func (s *Server) getCluster(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.deps.Lab.Status(r.Context()))
}
