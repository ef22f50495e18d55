package web

import "net/http"

// getGroup is GET /api/groups/{group}: state, members and their
// assignments, committed offsets with both lags.
func (s *Server) getGroup(w http.ResponseWriter, r *http.Request) {
	g, err := s.deps.Lab.GroupDetail(r.Context(), pathParam(r, "group"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, g)
}
