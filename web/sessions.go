package web

import (
	"fmt"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// sendBody is POST /api/transactions/{id}/send.
type sendBody struct {
	Topic     string   `json:"topic"`
	Partition *int32   `json:"partition"`
	Key       *string  `json:"key"`
	Values    []string `json:"values"`
}

// transactionStep is POST /api/transactions/{id}/{begin|send|commit|abort|crash}:
// the transaction panel's buttons, one step at a time.
func (s *Server) transactionStep(w http.ResponseWriter, r *http.Request) {
	id, step := chi.URLParam(r, "transactionalID"), chi.URLParam(r, "step")
	ctx := r.Context()
	var (
		st  producer.SessionState
		err error
	)
	switch step {
	case "begin":
		st, err = s.deps.Sessions.Begin(ctx, id)
	case "send":
		var body sendBody
		if err := decodeJSON(r, &body); err != nil {
			s.writeError(w, r, err)
			return
		}
		if _, err := s.deps.Cluster.Topic(ctx, body.Topic); err != nil {
			s.writeError(w, r, err)
			return
		}
		st, err = s.deps.Sessions.Send(ctx, id, producer.Request{Topic: body.Topic, Partition: body.Partition, Key: body.Key, Values: body.Values})
	case "commit", "abort":
		st, err = s.deps.Sessions.End(ctx, id, step == "commit")
	case "crash":
		if !s.allowFault(w, r) {
			return
		}
		st, err = s.deps.Sessions.Crash(ctx, id)
	default:
		s.writeError(w, r, keyedError(http.StatusNotFound, fmt.Sprintf("unknown transaction step %q: use begin, send, commit, abort or crash", step), "error.unknownTxnStep", "step", step))
		return
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.narrateStep(step, st)
	writeJSON(w, http.StatusOK, st)
}

func (s *Server) narrateStep(step string, st producer.SessionState) {
	if s.deps.Live == nil {
		return
	}
	who := fmt.Sprintf("transactional.id %s (producer %d, epoch %d)", st.TransactionalID, st.ProducerID, st.ProducerEpoch)
	// Key and Args: the same sentence in the UI catalogue (live.Event.Key).
	args := map[string]string{"txid": st.TransactionalID, "producer": fmt.Sprint(st.ProducerID), "epoch": fmt.Sprint(st.ProducerEpoch)}
	switch step {
	case "begin":
		s.deps.Live.Narrate(live.Event{Kind: live.EventInfo, Text: "Transaction begun by " + who + ". Its writes stay invisible to read_committed consumers until it commits.",
			Key: "narration.txn.begin", Args: args})
	case "crash":
		s.deps.Live.Narrate(live.Event{Kind: live.EventCrash, Text: "Process crashed before commit — no EndTxn was sent. The transaction of " + who + " stays Ongoing and holds the last stable offset back until a new producer with the same id fences it or transaction.timeout.ms (60 s) passes.",
			Key: "narration.txn.crash", Args: args})
	}
}
