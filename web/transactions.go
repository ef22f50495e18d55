package web

import (
	"net/http"

	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// getTransaction is GET /api/transactions/{id}: the coordinator's view.
func (s *Server) getTransaction(w http.ResponseWriter, r *http.Request) {
	t, err := s.deps.Lab.Transaction(r.Context(), pathParam(r, "transactionalID"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

// sendBody is POST /api/transactions/{id}/send.
type sendBody struct {
	Topic     string    `json:"topic"`
	Partition *int32    `json:"partition"`
	Key       *string   `json:"key"`
	Values    []*string `json:"values"`
}

// transactionStep is POST /api/transactions/{id}/{begin|send|commit|abort|crash}:
// the transaction panel's buttons, one step at a time, in the dashboard's
// own application process.
func (s *Server) transactionStep(w http.ResponseWriter, r *http.Request) {
	id, step := pathParam(r, "transactionalID"), pathParam(r, "step")
	ctx := r.Context()
	var (
		st  producer.SessionState
		err error
	)
	switch step {
	case "begin":
		st, err = s.deps.Lab.Begin(ctx, lab.DashboardProcess, id, 0)
	case "send":
		var body sendBody
		if err := decodeJSON(r, &body); err != nil {
			s.writeError(w, r, err)
			return
		}
		st, err = s.deps.Lab.Send(ctx, lab.DashboardProcess, id, producer.Request{Topic: body.Topic, Partition: body.Partition, Key: body.Key, Values: body.Values})
	case "commit", "abort":
		st, err = s.deps.Lab.End(ctx, lab.DashboardProcess, id, step == "commit")
	case "crash":
		if !s.allowFault(w, r) {
			return
		}
		st, err = s.deps.Lab.Crash(ctx, lab.DashboardProcess, id)
	default:
		err = problem.New(problem.NotFound, "error.unknownTxnStep", "step", step)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}
