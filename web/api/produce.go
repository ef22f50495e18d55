package api

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// ProduceLab produces with a producer profile and a fault; *lab.Lab is
// one.
type ProduceLab interface {
	Produce(ctx context.Context, req producer.Request) (*producer.Outcome, error)
}

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

// Produce is POST /api/produce: one producer session with the chosen
// settings and fault.
func (s *Server) Produce(w http.ResponseWriter, r *http.Request) {
	var body produceBody
	if err := httpx.DecodeJSON(r, &body); err != nil {
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
	out, err := s.deps.Produce.Produce(r.Context(), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	for _, res := range out.Results {
		s.teacherWrites(r, req.Topic, res.Partition)
	}
	httpx.WriteJSON(w, http.StatusOK, out)
}

// parseAcks accepts "0", "1", "all" (and -1, Kafka's spelling of all), as
// a string or a number.
func parseAcks(raw json.RawMessage) (producer.Acks, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return producer.AcksAll, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		v = string(raw)
	}
	switch v {
	case "0":
		return producer.AcksNone, nil
	case "1":
		return producer.AcksLeader, nil
	case "all", "-1":
		return producer.AcksAll, nil
	}
	return "", problem.New(problem.Invalid, "error.acksInvalidRaw", "acks", string(raw))
}
