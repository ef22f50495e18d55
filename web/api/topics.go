package api

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// ListTopics is GET /api/topics (?internal=true: Kafka's own topics too):
// {"topics","total","next"}; ?offset=&limit= returns a page of the list
// and next the offset of the following page (null at the end). The router
// runs it behind the read limiter, as it reads every partition's offsets.
func (s *Server) ListTopics(w http.ResponseWriter, r *http.Request) {
	list := s.deps.Lab.Topics
	if r.URL.Query().Get("internal") == "true" {
		list = s.deps.Lab.AllTopics
	}
	topics, err := list(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !s.readsAll(r) {
		topics = slices.DeleteFunc(topics, func(t cluster.TopicInfo) bool { return !s.MayReadTopic(r, t.Name, -1) && !s.stagedIn(t.Name) })
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
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"topics": topics[page.from:page.to], "total": len(topics), "next": next})
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

// GetTopic is GET /api/topics/{topic}: partitions with their open
// transactions, and the topic's configurations. With ?brief=true it is
// only the partitions' placement and pointers (one metadata request and
// three ListOffsets, no DescribeProducers per partition, no configs):
// what the topic page polls to follow its strips live.
func (s *Server) GetTopic(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("brief") == "true" {
		t, err := s.deps.Lab.Topic(r.Context(), httpx.PathParam(r, "topic"))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		httpx.WriteJSON(w, http.StatusOK, t)
		return
	}
	t, err := s.deps.Lab.TopicDetail(r.Context(), httpx.PathParam(r, "topic"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, t)
}

// CreateTopic is POST /api/topics.
func (s *Server) CreateTopic(w http.ResponseWriter, r *http.Request) {
	var spec cluster.TopicSpec
	if err := httpx.DecodeJSON(r, &spec); err != nil {
		s.writeError(w, r, err)
		return
	}
	t, err := s.deps.Lab.CreateTopic(r.Context(), spec)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.teacherWrites(r, t.Name, 0)
	httpx.WriteJSON(w, http.StatusCreated, t)
}

// DeleteTopic is DELETE /api/topics/{topic}?confirm={topic}: the name
// repeated, so that no script or slip deletes a topic by accident.
func (s *Server) DeleteTopic(w http.ResponseWriter, r *http.Request) {
	topic := httpx.PathParam(r, "topic")
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
