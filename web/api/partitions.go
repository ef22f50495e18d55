package api

import (
	"net/http"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// GetLog is GET /api/topics/{topic}/partitions/{p}/log?from=&limit=: the
// partition offset by offset.
func (s *Server) GetLog(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from, limit, err := windowParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	l, err := s.deps.Lab.Log(r.Context(), topic, partition, from, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, l)
}

// GetRecords is GET /api/topics/{topic}/partitions/{p}/records: what a
// consumer at the isolation level receives.
func (s *Server) GetRecords(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	iso := inspect.Isolation(r.URL.Query().Get("isolation"))
	if iso == "" {
		iso = inspect.ReadCommitted
	}
	if !iso.Valid() {
		s.writeError(w, r, problem.New(problem.Invalid, "error.isolationInvalid", "isolation", string(iso)))
		return
	}
	from, limit, err := windowParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page, err := s.deps.Lab.RecordsPage(r.Context(), topic, partition, iso, from, limit)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	answer := map[string]any{"topic": topic, "partition": partition, "isolation": iso, "records": page.Records}
	if page.Truncated {
		answer["truncated"], answer["next"] = true, page.Next
	}
	httpx.WriteJSON(w, http.StatusOK, answer)
}

// GetHistory is GET …/history?from=N: the partition's recorded story from
// step N on (all of it without from), for the page's replay.
func (s *Server) GetHistory(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	from := 0
	if v := r.URL.Query().Get("from"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.writeError(w, r, problem.New(problem.Invalid, "error.fromInvalid", "from", v))
			return
		}
		from = n
	}
	h, err := s.deps.Lab.History(r.Context(), topic, partition, from)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, h)
}

// GetMap is GET …/map?from=&to=&buckets=N.
func (s *Server) GetMap(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
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
	httpx.WriteJSON(w, http.StatusOK, m)
}

// GetJump is GET …/jump?kind=&from=&to=&backward=true: the next (or
// previous) offset of a kind.
func (s *Server) GetJump(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
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
	httpx.WriteJSON(w, http.StatusOK, j)
}

// GetSearch is GET …/search?q=&in=key|value|header&path=&match=&from=&to=&limit=.
func (s *Server) GetSearch(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
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
	httpx.WriteJSON(w, http.StatusOK, res)
}

// GetOffsetForTime is GET …/offset?timestamp=MS.
func (s *Server) GetOffsetForTime(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
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
	httpx.WriteJSON(w, http.StatusOK, o)
}
