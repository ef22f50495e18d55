package api

import (
	"net/http"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/web/httpx"
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
	// teacherWrote is the partition the teacher last wrote to or created
	// through the dashboard, which / opens when the teacher watches none.
	teacherWrote atomic.Pointer[partitionRef]
	present      presence
	// shown are the groups and transactional ids the teacher's actions
	// used, which the stage shows and students may read.
	shown shownNames
}

// maxShown bounds shownNames; past it the oldest name is forgotten.
const maxShown = 256

// shownNames is a bounded set of names, oldest first.
type shownNames struct {
	mu    sync.Mutex
	order []string
	set   map[string]bool
}

// add records names (empty ones are skipped).
func (n *shownNames) add(names ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.set == nil {
		n.set = map[string]bool{}
	}
	for _, name := range names {
		if name == "" || n.set[name] {
			continue
		}
		if len(n.order) >= maxShown {
			delete(n.set, n.order[0])
			n.order = n.order[1:]
		}
		n.order = append(n.order, name)
		n.set[name] = true
	}
}

// has reports whether name was shown.
func (n *shownNames) has(name string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.set[name]
}

// Presence of student pages: a page names itself (a random id per tab)
// when it polls GET /api/classroom, every two seconds, whether or not a
// partition is open on it — which is exactly when the teacher projects the
// QR code and wants to see the class arrive.
const (
	presenceWindow = 6 * time.Second
	maxPresent     = 4096
)

// clientID is a page's name for itself: short, URL-safe.
var clientID = regexp.MustCompile(`^[A-Za-z0-9_-]{8,40}$`)

// presence counts the student pages that polled recently. It holds at
// most maxPresent ids; beyond that new pages are counted by their
// websocket alone.
type presence struct {
	mu     sync.Mutex
	seen   map[string]time.Time
	pruned time.Time
}

// mark records that page id polled at now.
func (p *presence) mark(id string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = map[string]time.Time{}
	}
	p.pruneLocked(now)
	if _, ok := p.seen[id]; ok || len(p.seen) < maxPresent {
		p.seen[id] = now
	}
}

// count is how many pages polled within presenceWindow of now.
func (p *presence) count(now time.Time) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pruneLocked(now)
	return int64(len(p.seen))
}

// pruneLocked forgets pages gone quiet, at most once a second.
func (p *presence) pruneLocked(now time.Time) {
	if now.Sub(p.pruned) < time.Second {
		return
	}
	p.pruned = now
	for id, at := range p.seen {
		if now.Sub(at) > presenceWindow {
			delete(p.seen, id)
		}
	}
}

// classroomView is GET /api/classroom.
type classroomView struct {
	Classroom bool   `json:"classroom"`
	Role      string `json:"role"`
	// Students is how many student pages are open: those that polled in
	// the last few seconds, or, if more, those watching a partition.
	Students int64 `json:"students"`
	// TeacherPartition is the partition the teacher watched last, which
	// student pages follow.
	TeacherPartition *partitionRef `json:"teacherPartition"`
	JoinURL          string        `json:"joinUrl,omitempty"`
	// LessonRun is the guided lesson run the teacher drove last, which
	// every page (students', another tab's) shows as it progresses.
	LessonRun string `json:"lessonRun,omitempty"`
}

// GetClassroom is GET /api/classroom[?client=ID]: a student page names
// itself with client to be counted while no partition is open on it.
func (s *Server) GetClassroom(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	if id := paramsOf(r).text("client"); s.access.Classroom && httpx.RoleOf(r) != httpx.Teacher && clientID.MatchString(id) {
		s.class.present.mark(id, now)
	}
	students := max(s.class.students.Load(), s.class.present.count(now))
	v := classroomView{Classroom: s.access.Classroom, Role: httpx.RoleOf(r).String(), Students: students, TeacherPartition: s.class.teacherAt.Load()}
	if s.access.Classroom {
		v.JoinURL = s.access.JoinURL
	}
	if s.deps.Lessons != nil {
		v.LessonRun = s.deps.Lessons.Current()
	}
	httpx.WriteJSON(w, http.StatusOK, v)
}

// teacherWrites remembers, for /, the partition a teacher's request wrote
// to or created (students' requests write nothing).
func (s *Server) teacherWrites(r *http.Request, topic string, partition int32) {
	if httpx.RoleOf(r) == httpx.Teacher && topic != "" && partition >= 0 {
		s.class.teacherWrote.Store(&partitionRef{Topic: topic, Partition: partition})
	}
}

// TeacherWatches is the partition a teacher's page watched last, which
// the students' pages follow; ok is false when none did.
func (s *Server) TeacherWatches() (topic string, partition int32, ok bool) {
	return loadRef(&s.class.teacherAt)
}

// TeacherWrote is the partition the teacher last wrote to or created
// through the API; ok is false when the teacher did neither.
func (s *Server) TeacherWrote() (topic string, partition int32, ok bool) {
	return loadRef(&s.class.teacherWrote)
}

func loadRef(p *atomic.Pointer[partitionRef]) (string, int32, bool) {
	if ref := p.Load(); ref != nil {
		return ref.Topic, ref.Partition, true
	}
	return "", 0, false
}

// Watching counts a websocket viewer by role while it is connected and
// remembers the partition a teacher opened, for the students to follow.
func (s *Server) Watching(r *http.Request, topic string, partition int32) (done func()) {
	if httpx.RoleOf(r) == httpx.Teacher {
		s.stage(&partitionRef{Topic: topic, Partition: partition})
		return func() {}
	}
	s.class.students.Add(1)
	return func() { s.class.students.Add(-1) }
}

// stage makes ref the teacher's partition, which students' pages follow,
// and keeps it with the class (it survives a restart).
func (s *Server) stage(ref *partitionRef) {
	s.class.teacherAt.Store(ref)
	if s.deps.Exercises != nil {
		s.deps.Exercises.SetStage(exercises.Stage{Topic: ref.Topic, Partition: ref.Partition})
	}
}
