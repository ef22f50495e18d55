package api

import (
	"context"
	"net/http"
	"slices"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// TopicsLab is what the topics' handlers read and change; *lab.Lab is
// one.
type TopicsLab interface {
	Topics(ctx context.Context) ([]cluster.TopicInfo, error)
	AllTopics(ctx context.Context) ([]cluster.TopicInfo, error)
	Topic(ctx context.Context, name string) (cluster.TopicInfo, error)
	TopicDetail(ctx context.Context, name string) (lab.TopicDetail, error)
	CreateTopic(ctx context.Context, spec cluster.TopicSpec) (cluster.TopicInfo, error)
	DeleteTopic(ctx context.Context, name string) error
}

// ListTopics is GET /api/topics (?internal=true: Kafka's own topics too):
// {"topics","total","next"}; ?offset=&limit= returns a page of the list
// and next the offset of the following page (null at the end). The router
// runs it behind the read limiter, as it reads every partition's offsets.
func (s *Server) ListTopics(w http.ResponseWriter, r *http.Request) {
	p := paramsOf(r)
	list := s.deps.Topics.Topics
	if p.flag("internal") {
		list = s.deps.Topics.AllTopics
	}
	topics, err := list(r.Context())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !s.readsAll(r) {
		topics = slices.DeleteFunc(topics, func(t cluster.TopicInfo) bool { return !s.ListsTopic(r, t.Name) })
	}
	page, err := topicsPageOf(p, len(topics))
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
func topicsPageOf(p params, total int) (topicsRange, error) {
	offset, err := p.number("offset", 0)
	if err != nil {
		return topicsRange{}, err
	}
	limit, err := p.number("limit", total)
	if err != nil {
		return topicsRange{}, err
	}
	from := min(offset, total)
	return topicsRange{from, min(from+limit, total)}, nil
}

// GetTopic is GET /api/topics/{topic}: partitions with their open
// transactions, and the topic's configurations. With ?brief=true it is
// only the partitions' placement and pointers (one metadata request and
// three ListOffsets, no DescribeProducers per partition, no configs):
// what the topic page polls to follow its strips live.
func (s *Server) GetTopic(w http.ResponseWriter, r *http.Request) {
	if paramsOf(r).flag("brief") {
		t, err := s.deps.Topics.Topic(r.Context(), httpx.PathParam(r, "topic"))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		httpx.WriteJSON(w, http.StatusOK, t)
		return
	}
	t, err := s.deps.Topics.TopicDetail(r.Context(), httpx.PathParam(r, "topic"))
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
	t, err := s.deps.Topics.CreateTopic(r.Context(), spec)
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
	if paramsOf(r).text("confirm") != topic {
		s.writeError(w, r, problem.New(problem.Invalid, "error.deleteConfirm", "topic", topic))
		return
	}
	if err := s.deps.Topics.DeleteTopic(r.Context(), topic); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
