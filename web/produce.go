package web

import (
	"encoding/json"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/producer"
)

// produceBody is POST /api/produce. A null value is a tombstone.
type produceBody struct {
	Topic           string          `json:"topic"`
	Partition       *int32          `json:"partition"`
	Key             *string         `json:"key"`
	Values          []*string       `json:"values"`
	Acks            json.RawMessage `json:"acks"`
	Idempotent      *bool           `json:"idempotent"`
	TransactionalID string          `json:"transactionalId"`
	Fault           string          `json:"fault"`
}

// produce is POST /api/produce: one producer session with the chosen
// settings and fault.
func (s *Server) produce(w http.ResponseWriter, r *http.Request) {
	var body produceBody
	if err := decodeJSON(r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	acks, err := parseAcks(body.Acks)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req := producer.Request{
		Topic: body.Topic, Partition: body.Partition, Key: body.Key, Values: body.Values,
		Profile: producer.Profile{Acks: acks, Idempotent: body.Idempotent, TransactionalID: body.TransactionalID},
		Fault:   producer.Fault(body.Fault),
	}
	if err := req.Validate(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if req.Fault != producer.NoFault && !s.allowFault(w, r) {
		return
	}
	out, err := s.deps.Lab.Produce(r.Context(), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	for _, res := range out.Results {
		s.teacherWrites(r, req.Topic, res.Partition)
	}
	writeJSON(w, http.StatusOK, out)
}
