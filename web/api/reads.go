package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// In classroom mode a student's reads over HTTP follow their Kafka
// rights: their own topics, groups and transactional ids (their prefix),
// the teacher's shared topics (READ), plus the partition the teacher put
// on the stage (and the one the teacher last wrote, which a student's
// home opens). Anything else is refused with error.readNotYours, as Kafka
// refuses the same student with an authorization error. The teacher, and
// everyone outside classroom mode, reads everything.

// readsAll reports whether the request may read everything.
func (s *Server) readsAll(r *http.Request) bool {
	return !s.access.Classroom || httpx.RoleOf(r) == httpx.Teacher
}

// ownPrefix is the prefix of the request's student, "" for a browser that
// is no student.
func (s *Server) ownPrefix(r *http.Request) string {
	if st, ok := s.studentOf(r); ok {
		return st.Kafka.Topic
	}
	return ""
}

// MayReadTopic reports whether the request may read topic's partition
// (partition -1: the topic as a whole).
func (s *Server) MayReadTopic(r *http.Request, topic string, partition int32) bool {
	if s.readsAll(r) {
		return true
	}
	if p := s.ownPrefix(r); p != "" && strings.HasPrefix(topic, p) {
		return true
	}
	if s.deps.Exercises != nil && slices.Contains(s.deps.Exercises.Class().Placeholder("x").SharedTopics, topic) {
		return true
	}
	for _, ref := range []*partitionRef{s.class.teacherAt.Load(), s.class.teacherWrote.Load()} {
		if ref != nil && ref.Topic == topic && (partition < 0 || ref.Partition == partition) {
			return true
		}
	}
	return false
}

// MayReadOwn reports whether the request may read a group or
// transactional id called name: a student, their own and those the stage
// shows — the teacher's processor runs and transactions, the lesson run
// in progress.
func (s *Server) MayReadOwn(r *http.Request, name string) bool {
	if s.readsAll(r) {
		return true
	}
	if p := s.ownPrefix(r); p != "" && strings.HasPrefix(name, p) {
		return true
	}
	if s.class.shown.has(name) {
		return true
	}
	if s.deps.Lessons != nil {
		if id := s.deps.Lessons.Current(); id != "" {
			if st, err := s.deps.Lessons.State(id); err == nil {
				for _, n := range st.Names {
					if n == name {
						return true
					}
				}
			}
		}
	}
	return false
}

// RefuseRead answers 403 error.readNotYours for what (topic, group,
// transactional id) name.
func (s *Server) RefuseRead(w http.ResponseWriter, r *http.Request, what, name string) {
	s.writeError(w, r, problem.New(problem.Forbidden, "error.readNotYours", "whatKey", "read."+what, "name", name))
}

// ListsTopic reports whether the request's lists show topic: the
// topics it may read, and the one holding the stage.
func (s *Server) ListsTopic(r *http.Request, topic string) bool {
	return s.MayReadTopic(r, topic, -1) || s.stagedIn(topic)
}

// stagedIn reports whether topic holds the stage (the list shows it,
// though only the staged partition may be read).
func (s *Server) stagedIn(topic string) bool {
	for _, ref := range []*partitionRef{s.class.teacherAt.Load(), s.class.teacherWrote.Load()} {
		if ref != nil && ref.Topic == topic {
			return true
		}
	}
	return false
}
