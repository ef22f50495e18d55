package api

import (
	"net/http"

	"github.com/offsetlab/offsetlab/web/httpx"
)

// GetProducers is GET …/producers: DescribeProducers with "hanging".
func (s *Server) GetProducers(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.deps.Lab.Producers(r.Context(), topic, partition)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, p)
}
