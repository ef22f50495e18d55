package api

import (
	"context"
	"net/http"
	"slices"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// GroupsLab is what the consumer groups' handlers read; *lab.Lab is one.
type GroupsLab interface {
	Groups(ctx context.Context) ([]cluster.GroupSummary, error)
	GroupDetail(ctx context.Context, name string) (cluster.GroupDetail, error)
}

// GetGroup is GET /api/groups/{group}: state, members and their
// assignments, committed offsets with both lags.
func (s *Server) GetGroup(w http.ResponseWriter, r *http.Request) {
	g, err := s.deps.Groups.GroupDetail(r.Context(), httpx.PathParam(r, "group"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, g)
}

// ListGroups is GET /api/groups.
func (s *Server) ListGroups(w http.ResponseWriter, r *http.Request) {
	g, err := s.deps.Groups.Groups(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !s.readsAll(r) {
		g = slices.DeleteFunc(g, func(x cluster.GroupSummary) bool { return !s.MayReadOwn(r, x.Group) })
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"groups": g})
}
