package api

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// TransactionsLab is what the transactions' handlers read and do: the
// coordinator's view, the dashboard's own transaction one step at a time,
// and an administrator's aborts; *lab.Lab is one.
type TransactionsLab interface {
	Transaction(ctx context.Context, id string) (cluster.TransactionInfo, error)
	Transactions(ctx context.Context, states ...string) ([]cluster.TransactionSummary, error)
	Begin(ctx context.Context, process, id string, timeout time.Duration) (producer.SessionState, error)
	Send(ctx context.Context, process, id string, req producer.Request) (producer.SessionState, error)
	End(ctx context.Context, process, id string, commit bool) (producer.SessionState, error)
	Crash(ctx context.Context, process, id string) (producer.SessionState, error)
	AbortTransaction(ctx context.Context, topic string, partition int32, startOffset int64) (cluster.AbortedTransaction, error)
	ForceTerminateTransaction(ctx context.Context, id string) (cluster.TerminatedTransaction, error)
}

// GetTransaction is GET /api/transactions/{id}: the coordinator's view.
func (s *Server) GetTransaction(w http.ResponseWriter, r *http.Request) {
	t, err := s.deps.Transactions.Transaction(r.Context(), httpx.PathParam(r, "transactionalID"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, t)
}

// sendBody is POST /api/transactions/{id}/send.
type sendBody struct {
	Topic     string    `json:"topic"`
	Partition *int32    `json:"partition"`
	Key       *string   `json:"key"`
	Values    []*string `json:"values"`
}

// TransactionStep is POST /api/transactions/{id}/{begin|send|commit|abort|crash}:
// the transaction panel's buttons, one step at a time, in the dashboard's
// own application process.
func (s *Server) TransactionStep(w http.ResponseWriter, r *http.Request) {
	id, step := httpx.PathParam(r, "transactionalID"), httpx.PathParam(r, "step")
	ctx := r.Context()
	var (
		st  producer.SessionState
		err error
	)
	switch step {
	case "begin":
		st, err = s.deps.Transactions.Begin(ctx, lab.DashboardProcess, id, 0)
	case "send":
		var body sendBody
		if err := httpx.DecodeJSON(r, &body); err != nil {
			s.writeError(w, r, err)
			return
		}
		st, err = s.deps.Transactions.Send(ctx, lab.DashboardProcess, id, producer.Request{Topic: body.Topic, Partition: body.Partition, Key: body.Key, Values: body.Values})
	case "commit", "abort":
		st, err = s.deps.Transactions.End(ctx, lab.DashboardProcess, id, step == "commit")
	case "crash":
		if !s.allowFault(w, r) {
			return
		}
		st, err = s.deps.Transactions.Crash(ctx, lab.DashboardProcess, id)
	default:
		err = problem.New(problem.NotFound, "error.unknownTxnStep", "step", step)
	}
	s.class.shown.add(id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, st)
}

// ListTransactions is GET /api/transactions?state=Ongoing.
func (s *Server) ListTransactions(w http.ResponseWriter, r *http.Request) {
	var states []string
	if v := paramsOf(r).text("state"); v != "" {
		states = append(states, v)
	}
	t, err := s.deps.Transactions.Transactions(r.Context(), states...)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !s.readsAll(r) {
		t = slices.DeleteFunc(t, func(x cluster.TransactionSummary) bool { return !s.MayReadOwn(r, x.TransactionalID) })
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"transactions": t})
}

// AbortTransaction is POST …/transactions/{start}/abort: abort the
// (hanging) transaction open at offset start, as kafka-transactions.sh
// abort does.
func (s *Server) AbortTransaction(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	start, err := offsetValue("start", httpx.PathParam(r, "start"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !s.allowFault(w, r) {
		return
	}
	a, err := s.deps.Transactions.AbortTransaction(r.Context(), topic, partition, start)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, a)
}

// TerminateTransaction is POST /api/transactions/{id}/terminate: abort
// the id's ongoing transaction through its coordinator, fencing its
// producer, as kafka-transactions.sh forceTerminateTransaction does.
func (s *Server) TerminateTransaction(w http.ResponseWriter, r *http.Request) {
	if !s.allowFault(w, r) {
		return
	}
	t, err := s.deps.Transactions.ForceTerminateTransaction(r.Context(), httpx.PathParam(r, "transactionalID"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, t)
}
