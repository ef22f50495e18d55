package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/producer"
)

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// clusterView is GET /api/cluster.
type clusterView struct {
	Mode      cluster.Mode `json:"mode"`
	Brokers   []string     `json:"brokers"`
	KafkaAddr string       `json:"kafkaAddr"`
	Reachable bool         `json:"reachable"`
	Error     string       `json:"error,omitempty"`
}

func (s *Server) getCluster(w http.ResponseWriter, r *http.Request) {
	brokers := s.deps.Cluster.Brokers()
	v := clusterView{Mode: s.deps.Cluster.Mode(), Brokers: brokers, KafkaAddr: strings.Join(brokers, ","), Reachable: true}
	if err := s.deps.Cluster.Ping(r.Context()); err != nil {
		v.Reachable, v.Error = false, err.Error()
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Server) listTopics(w http.ResponseWriter, r *http.Request) {
	topics, err := s.deps.Cluster.Topics(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if topics == nil {
		topics = []cluster.TopicInfo{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"topics": topics})
}

func (s *Server) getTopic(w http.ResponseWriter, r *http.Request) {
	t, err := s.deps.Cluster.Topic(r.Context(), chi.URLParam(r, "topic"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

func (s *Server) createTopic(w http.ResponseWriter, r *http.Request) {
	var spec cluster.TopicSpec
	if err := decodeJSON(r, &spec); err != nil {
		s.writeError(w, r, err)
		return
	}
	t, err := s.deps.Cluster.CreateTopic(r.Context(), spec)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, t)
}

// partitionParams reads {topic} and {partition} and checks that they exist.
func (s *Server) partitionParams(r *http.Request) (string, int32, error) {
	topic := chi.URLParam(r, "topic")
	p, err := strconv.ParseInt(chi.URLParam(r, "partition"), 10, 32)
	if err != nil || p < 0 {
		return "", 0, badRequest(fmt.Sprintf("partition %q must be a whole number, 0 or more", chi.URLParam(r, "partition")), "error.partitionNotNumber", "partition", chi.URLParam(r, "partition"))
	}
	t, err := s.deps.Cluster.Topic(r.Context(), topic)
	if err != nil {
		return "", 0, err
	}
	if int(p) >= len(t.Partitions) {
		return "", 0, keyedError(http.StatusNotFound, fmt.Sprintf("topic %q has %d partition(s); partition %d does not exist", topic, len(t.Partitions), p), "error.unknownPartition", "topic", topic, "count", strconv.Itoa(len(t.Partitions)), "partition", strconv.FormatInt(p, 10))
	}
	return topic, int32(p), nil
}

// windowParams reads from and limit; from defaults to the log start.
func windowParams(r *http.Request) (int64, int, error) {
	from := int64(-1)
	if v := r.URL.Query().Get("from"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, badRequest(fmt.Sprintf("from=%q must be an offset, 0 or more", v), "error.fromInvalid", "from", v)
		}
		from = n
	}
	limit := inspect.DefaultLimit
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, badRequest(fmt.Sprintf("limit=%q must be a whole number, 1 or more", v), "error.limitInvalid", "limit", v)
		}
		limit = min(n, inspect.MaxLimit)
	}
	return from, limit, nil
}

func (s *Server) getLog(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := s.partitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, limit, err := windowParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	l, err := s.deps.Log.ReadLog(r.Context(), topic, partition, from, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, l)
}

func (s *Server) getRecords(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := s.partitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	iso := inspect.Isolation(r.URL.Query().Get("isolation"))
	switch iso {
	case "":
		iso = inspect.ReadCommitted
	case inspect.ReadCommitted, inspect.ReadUncommitted:
	default:
		s.writeError(w, r, badRequest(fmt.Sprintf("isolation=%q: use read_committed or read_uncommitted", string(iso)), "error.isolationInvalid", "isolation", string(iso)))
		return
	}
	from, limit, err := windowParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	recs, err := s.deps.Log.ReadRecords(r.Context(), topic, partition, iso, from, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if recs == nil {
		recs = []inspect.Record{}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"topic": topic, "partition": partition, "isolation": iso, "records": recs,
	})
}

// produceBody is POST /api/produce.
type produceBody struct {
	Topic           string          `json:"topic"`
	Partition       *int32          `json:"partition"`
	Key             *string         `json:"key"`
	Values          []string        `json:"values"`
	Acks            json.RawMessage `json:"acks"`
	Idempotent      *bool           `json:"idempotent"`
	TransactionalID string          `json:"transactionalId"`
	Fault           string          `json:"fault"`
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
	return "", badRequest(fmt.Sprintf("acks must be \"0\", \"1\" or \"all\", not %s", string(raw)), "error.acksInvalidRaw", "acks", string(raw))
}

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
	t, err := s.deps.Cluster.Topic(r.Context(), body.Topic)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if body.Partition != nil && int(*body.Partition) >= len(t.Partitions) {
		s.writeError(w, r, keyedError(http.StatusNotFound, fmt.Sprintf("topic %q has %d partition(s); partition %d does not exist", body.Topic, len(t.Partitions), *body.Partition), "error.unknownPartition", "topic", body.Topic, "count", strconv.Itoa(len(t.Partitions)), "partition", strconv.Itoa(int(*body.Partition))))
		return
	}
	out, err := s.deps.Producer.Produce(r.Context(), req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.narrateProduce(req, out)
	writeJSON(w, http.StatusOK, out)
}

// runBody is POST /api/processor/runs.
type runBody struct {
	Mode            string `json:"mode"`
	Input           string `json:"input"`
	Output          string `json:"output"`
	Group           string `json:"group"`
	TransactionalID string `json:"transactionalId"`
	CrashAt         string `json:"crashAt"`
}

func (s *Server) runProcessor(w http.ResponseWriter, r *http.Request) {
	var body runBody
	if err := decodeJSON(r, &body); err != nil {
		s.writeError(w, r, err)
		return
	}
	cfg := producer.RunConfig{
		Mode: producer.Mode(body.Mode), Input: body.Input, Output: body.Output, Group: body.Group,
		TransactionalID: body.TransactionalID, CrashAt: body.CrashAt,
	}
	if err := cfg.Validate(); err != nil {
		s.writeError(w, r, err)
		return
	}
	if !s.allowFault(w, r) {
		return
	}
	for _, topic := range []string{cfg.Input, cfg.Output} {
		if _, err := s.deps.Cluster.Topic(r.Context(), topic); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	fencedOngoing := false
	if cfg.Mode == producer.Transactional {
		if t, err := s.deps.Cluster.Transaction(r.Context(), cfg.TransactionalID); err == nil {
			fencedOngoing = t.State == "Ongoing"
		}
	}
	res, err := s.deps.Processor.Run(r.Context(), cfg)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.narrateRun(cfg, res, fencedOngoing)
	writeJSON(w, http.StatusOK, res)
}

func (s *Server) getGroup(w http.ResponseWriter, r *http.Request) {
	g, err := s.deps.Cluster.Group(r.Context(), chi.URLParam(r, "group"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, g)
}

func (s *Server) getTransaction(w http.ResponseWriter, r *http.Request) {
	t, err := s.deps.Cluster.Transaction(r.Context(), chi.URLParam(r, "transactionalID"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}
