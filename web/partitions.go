package web

import (
	"net/http"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// getLog is GET /api/topics/{topic}/partitions/{p}/log?from=&limit=: the
// partition offset by offset.
func (s *Server) getLog(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := partitionParams(r)
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
	writeJSON(w, http.StatusOK, l)
}

// getRecords is GET /api/topics/{topic}/partitions/{p}/records: what a
// consumer at the isolation level receives.
func (s *Server) getRecords(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := partitionParams(r)
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
	writeJSON(w, http.StatusOK, answer)
}

// getHistory is GET …/history?from=N: the partition's recorded story from
// step N on (all of it without from), for the page's replay.
func (s *Server) getHistory(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := partitionParams(r)
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
	writeJSON(w, http.StatusOK, h)
}
