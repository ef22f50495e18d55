package api

import (
	"context"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// ProducersLab is what a partition's producers' handlers read; *lab.Lab
// is one.
type ProducersLab interface {
	Producers(ctx context.Context, topic string, partition int32) (cluster.PartitionProducers, error)
	HeldLSO(ctx context.Context, topic string, partition int32) (cluster.LSOHold, error)
}

// GetProducers is GET …/producers: DescribeProducers with "hanging".
func (s *Server) GetProducers(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.deps.Producers.Producers(r.Context(), topic, partition)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, p)
}

// GetHeldLSO is GET …/lso: the partition's last stable offset and, when
// an open transaction holds it below the high watermark, that transaction
// (transactional id, producer, age, timeout) and the records waiting
// behind it.
func (s *Server) GetHeldLSO(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	h, err := s.deps.Producers.HeldLSO(r.Context(), topic, partition)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, h)
}
