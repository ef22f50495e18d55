package web

import (
	"net/http"
	"sync/atomic"
)

// partitionRef names a partition.
type partitionRef struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// classroom is what the teacher's and students' pages share: how many
// students watch and which partition the teacher opened last, which the
// students' pages follow.
type classroom struct {
	students  atomic.Int64
	teacherAt atomic.Pointer[partitionRef]
}

// classroomView is GET /api/classroom.
type classroomView struct {
	Classroom bool   `json:"classroom"`
	Role      string `json:"role"`
	// Students is how many student pages are watching a partition.
	Students int64 `json:"students"`
	// TeacherPartition is the partition the teacher watched last, which
	// student pages follow.
	TeacherPartition *partitionRef `json:"teacherPartition"`
	JoinURL          string        `json:"joinUrl,omitempty"`
	// LessonRun is the guided lesson run the teacher drove last, which
	// every page (students', another tab's) shows as it progresses.
	LessonRun string `json:"lessonRun,omitempty"`
}

func (s *Server) getClassroom(w http.ResponseWriter, r *http.Request) {
	v := classroomView{Classroom: s.access.Classroom, Role: roleOf(r).String(), Students: s.class.students.Load(), TeacherPartition: s.class.teacherAt.Load()}
	if s.access.Classroom {
		v.JoinURL = s.joinURL
	}
	if s.deps.Lessons != nil {
		v.LessonRun = s.deps.Lessons.Current()
	}
	writeJSON(w, http.StatusOK, v)
}

// watching counts a websocket viewer by role while it is connected and
// remembers the partition a teacher opened, for the students to follow.
func (s *Server) watching(r *http.Request, topic string, partition int32) (done func()) {
	if roleOf(r) == teacherRole {
		s.class.teacherAt.Store(&partitionRef{Topic: topic, Partition: partition})
		return func() {}
	}
	s.class.students.Add(1)
	return func() { s.class.students.Add(-1) }
}
