package web

import (
	"net/http"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// The explorer's API: a partition at a glance (map, jumps), search and
// seek, consumer groups, transactions and producers (see internal/lab's
// explore.go).

// offsetParam reads an optional offset query parameter; def when absent.
func offsetParam(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, problem.New(problem.Invalid, "error.offsetParam", "name", name, "value", v)
	}
	return n, nil
}

// intParam reads an optional whole-number query parameter.
func intParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, problem.New(problem.Invalid, "error.numberParam", "name", name, "value", v)
	}
	return n, nil
}

// rangeParams reads from and to: -1 (absent) means log start and high
// watermark.
func rangeParams(r *http.Request) (from, to int64, err error) {
	if from, err = offsetParam(r, "from", -1); err != nil {
		return
	}
	to, err = offsetParam(r, "to", -1)
	return
}

// getMap is GET …/map?from=&to=&buckets=N.
func (s *Server) getMap(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := partitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, to, err := rangeParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	buckets, err := intParam(r, "buckets", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	m, err := s.deps.Lab.Map(r.Context(), topic, partition, inspect.MapRequest{From: from, To: to, Buckets: buckets})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// getJump is GET …/jump?kind=&from=&to=&backward=true: the next (or
// previous) offset of a kind.
func (s *Server) getJump(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := partitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, to, err := rangeParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	j, err := s.deps.Lab.Jump(r.Context(), topic, partition, inspect.JumpRequest{
		Kind: inspect.JumpKind(q.Get("kind")), From: from, To: to, Backward: q.Get("backward") == "true",
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, j)
}

// getSearch is GET …/search?q=&in=key|value|header&path=&match=&from=&to=&limit=.
func (s *Server) getSearch(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := partitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, to, err := rangeParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	limit, err := intParam(r, "limit", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	res, err := s.deps.Lab.Search(r.Context(), topic, partition, inspect.SearchRequest{
		Query: q.Get("q"), In: q.Get("in"), Path: q.Get("path"), Match: q.Get("match"), From: from, To: to, Limit: limit,
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, res)
}

// getOffsetForTime is GET …/offset?timestamp=MS.
func (s *Server) getOffsetForTime(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := partitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	raw := r.URL.Query().Get("timestamp")
	ms, err := strconv.ParseInt(raw, 10, 64)
	if err != nil {
		s.writeError(w, r, problem.New(problem.Invalid, "error.timestampParam", "value", raw))
		return
	}
	o, err := s.deps.Lab.OffsetForTime(r.Context(), topic, partition, ms)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, o)
}

// getProducers is GET …/producers: DescribeProducers with "hanging".
func (s *Server) getProducers(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := partitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := s.deps.Lab.Producers(r.Context(), topic, partition)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, p)
}

// abortTransaction is POST …/transactions/{start}/abort: abort the
// (hanging) transaction open at offset start, as kafka-transactions.sh
// abort does.
func (s *Server) abortTransaction(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := partitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	raw := pathParam(r, "start")
	start, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || start < 0 {
		s.writeError(w, r, problem.New(problem.Invalid, "error.offsetParam", "name", "start", "value", raw))
		return
	}
	if !s.allowFault(w, r) {
		return
	}
	a, err := s.deps.Lab.AbortTransaction(r.Context(), topic, partition, start)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// listGroups is GET /api/groups.
func (s *Server) listGroups(w http.ResponseWriter, r *http.Request) {
	g, err := s.deps.Lab.Groups(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"groups": g})
}

// listTransactions is GET /api/transactions?state=Ongoing.
func (s *Server) listTransactions(w http.ResponseWriter, r *http.Request) {
	var states []string
	if v := r.URL.Query().Get("state"); v != "" {
		states = append(states, v)
	}
	t, err := s.deps.Lab.Transactions(r.Context(), states...)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"transactions": t})
}

// deleteTopic is DELETE /api/topics/{topic}?confirm={topic}: the name
// repeated, so that no script or slip deletes a topic by accident.
func (s *Server) deleteTopic(w http.ResponseWriter, r *http.Request) {
	topic := pathParam(r, "topic")
	if r.URL.Query().Get("confirm") != topic {
		s.writeError(w, r, problem.New(problem.Invalid, "error.deleteConfirm", "topic", topic))
		return
	}
	if err := s.deps.Lab.DeleteTopic(r.Context(), topic); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
