package web

import (
	"net/http"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// listTopics is GET /api/topics (?internal=true: Kafka's own topics too).
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
	writeJSON(w, http.StatusOK, map[string]any{"topics": topics})
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
	s.teacherWrites(r, t.Name, 0)
	writeJSON(w, http.StatusCreated, t)
}
