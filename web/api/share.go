package api

import (
	"context"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// SharesLab is what the share-state endpoint needs of the lab.
type SharesLab interface {
	SharePartition(ctx context.Context, topic string, partition int32, group string, from int64, limit int) (cluster.SharePartition, error)
}

// GetSharePartition is GET /api/topics/{topic}/partitions/{p}/share?group=G:
// a share group's delivery state on the partition offset by offset, from
// its start offset or from, at most limit offsets.
func (s *Server) GetSharePartition(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, limit, err := paramsOf(r).window()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	sp, err := s.deps.Shares.SharePartition(r.Context(), topic, partition, r.URL.Query().Get("group"), from, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, sp)
}
