package api

import (
	"context"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// ShareWorkersLab runs the dashboard's own share consumers; *lab.Lab is one.
type ShareWorkersLab interface {
	ShareWorkers() []lab.ShareWorkerState
	StartShareWorker(ctx context.Context, req lab.ShareWorkerRequest) (lab.ShareWorkerState, error)
	PollShareWorker(ctx context.Context, name string) (lab.ShareWorkerState, error)
	AckShareRecord(ctx context.Context, name string, partition int32, offset int64, ack lab.ShareAck) (lab.ShareWorkerState, error)
	CrashShareWorker(name string) (lab.ShareWorkerState, error)
	StopShareWorker(name string) error
}

// ListShareWorkers is GET /api/share/workers.
func (s *Server) ListShareWorkers(w http.ResponseWriter, r *http.Request) {
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"workers": s.deps.ShareWorkers.ShareWorkers()})
}

// StartShareWorker is POST /api/share/workers {"name","group","topic","fromStart"?}.
func (s *Server) StartShareWorker(w http.ResponseWriter, r *http.Request) {
	var body lab.ShareWorkerRequest
	if err := httpx.DecodeJSON(r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := s.deps.ShareWorkers.StartShareWorker(r.Context(), body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusCreated, st)
}

// shareAckBody is POST /api/share/workers/{name}/ack.
type shareAckBody struct {
	Partition int32        `json:"partition"`
	Offset    int64        `json:"offset"`
	Ack       lab.ShareAck `json:"ack"`
}

// ShareWorkerAction is POST /api/share/workers/{name}/{action}: poll,
// ack ({"partition","offset","ack":"accept"|"release"|"reject"}) or crash.
func (s *Server) ShareWorkerAction(w http.ResponseWriter, r *http.Request) {
	name := httpx.PathParam(r, "name")
	var (
		st  lab.ShareWorkerState
		err error
	)
	switch httpx.PathParam(r, "action") {
	case "poll":
		st, err = s.deps.ShareWorkers.PollShareWorker(r.Context(), name)
	case "ack":
		var body shareAckBody
		if err = httpx.DecodeJSON(r, &body); err == nil {
			st, err = s.deps.ShareWorkers.AckShareRecord(r.Context(), name, body.Partition, body.Offset, body.Ack)
		}
	case "crash":
		st, err = s.deps.ShareWorkers.CrashShareWorker(name)
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, st)
}

// StopShareWorker is DELETE /api/share/workers/{name}.
func (s *Server) StopShareWorker(w http.ResponseWriter, r *http.Request) {
	if err := s.deps.ShareWorkers.StopShareWorker(httpx.PathParam(r, "name")); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
