package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// listTopics is GET /api/topics (?internal=true: Kafka's own topics too):
// {"topics","total","next"}; ?offset=&limit= returns a page of the list
// and next the offset of the following page (null at the end). It runs
// behind the read limiter, as it reads every partition's offsets.
func (s *Server) listTopics(w http.ResponseWriter, r *http.Request) {
	list := s.deps.Lab.Topics
	if r.URL.Query().Get("internal") == "true" {
		list = s.deps.Lab.AllTopics
	}
	topics, err := list(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	page, err := topicsPageOf(r.URL.Query(), len(topics))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	next := any(nil)
	if page.to < len(topics) {
		next = page.to
	}
	writeJSON(w, http.StatusOK, map[string]any{"topics": topics[page.from:page.to], "total": len(topics), "next": next})
}

// topicsRange is a range of the topics list.
type topicsRange struct{ from, to int }

// topicsPageOf reads ?offset=&limit= of GET /api/topics (both optional:
// without limit, every topic from offset on).
func topicsPageOf(q url.Values, total int) (topicsRange, error) {
	r := topicsRange{0, total}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return r, problem.New(problem.Invalid, "error.numberParam", "name", "offset", "value", v)
		}
		r.from = min(n, total)
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return r, problem.New(problem.Invalid, "error.numberParam", "name", "limit", "value", v)
		}
		r.to = min(r.from+n, total)
	}
	return r, nil
}

// getTopic is GET /api/topics/{topic}: partitions with their open
// transactions, and the topic's configurations. With ?brief=true it is
// only the partitions' placement and pointers (one metadata request and
// three ListOffsets, no DescribeProducers per partition, no configs):
// what the topic page polls to follow its strips live.
func (s *Server) getTopic(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("brief") == "true" {
		t, err := s.deps.Lab.Topic(r.Context(), pathParam(r, "topic"))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, t)
		return
	}
	t, err := s.deps.Lab.TopicDetail(r.Context(), pathParam(r, "topic"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, t)
}

// createTopic is POST /api/topics.
func (s *Server) createTopic(w http.ResponseWriter, r *http.Request) {
	var spec cluster.TopicSpec
	if err := decodeJSON(r, &spec); err != nil {
		s.writeError(w, r, err)
		return
	}
	t, err := s.deps.Lab.CreateTopic(r.Context(), spec)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, t)
}
