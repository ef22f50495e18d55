package web

import (
	"net/http"
	"strings"
)

func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	page := homePage(string(s.deps.Cluster.Mode()), strings.Join(s.deps.Cluster.Brokers(), ","))
	if err := page.Render(r.Context(), w); err != nil {
		s.log.Error("render home", "err", err)
	}
}
