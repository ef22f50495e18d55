package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// BrokersLab reads the brokers and stops and starts the ones the server
// runs; *lab.Lab is one.
type BrokersLab interface {
	BrokerStatus(ctx context.Context) (lab.BrokersStatus, error)
	StopBroker(ctx context.Context, id int) error
	StartBroker(ctx context.Context, id int) error
}

// brokersView is GET /api/brokers: the nodes when the server runs them,
// else how to stop one by hand (hint, and hintCode/hintArgs naming it in
// the catalogue).
type brokersView struct {
	lab.BrokersStatus
	Hint     string       `json:"hint,omitempty"`
	HintCode string       `json:"hintCode,omitempty"`
	HintArgs catalog.Args `json:"hintArgs,omitempty"`
}

func viewBrokers(b lab.BrokersStatus) brokersView {
	v := brokersView{BrokersStatus: b}
	if !b.Hint.IsZero() {
		v.Hint, v.HintCode, v.HintArgs = b.Hint.String(), b.Hint.Key, b.Hint.Args
	}
	return v
}

// GetBrokers is GET /api/brokers.
func (s *Server) GetBrokers(w http.ResponseWriter, r *http.Request) {
	b, err := s.deps.Brokers.BrokerStatus(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, viewBrokers(b))
}

// BrokerAction is POST /api/brokers/{id}/stop|start.
func (s *Server) BrokerAction(w http.ResponseWriter, r *http.Request) {
	id, action := httpx.PathParam(r, "id"), httpx.PathParam(r, "action")
	if action != "stop" && action != "start" {
		s.writeError(w, r, problem.New(problem.NotFound, "error.brokerActionUnknown", "action", action))
		return
	}
	n, err := strconv.Atoi(id)
	if err != nil {
		s.writeError(w, r, problem.New(problem.Invalid, "error.brokerIdNotNumber", "id", id))
		return
	}
	if !s.allowFault(w, r) {
		return
	}
	if action == "stop" {
		err = s.deps.Brokers.StopBroker(r.Context(), n)
	} else {
		err = s.deps.Brokers.StartBroker(r.Context(), n)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.GetBrokers(w, r)
}
