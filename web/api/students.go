package api

import (
	"net/http"
	"time"

	"github.com/offsetlab/offsetlab/internal/exercises"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// StudentCookie names the cookie that says which student a browser is.
const StudentCookie = "offsetlab_student"

// JoinPath is where students join: the one write a student may send (see
// the router's guardWrites).
const JoinPath = "/api/classroom/students"

// exercisesEnabled answers 404 when the server was built without a class.
func (s *Server) exercisesEnabled(w http.ResponseWriter, r *http.Request) bool {
	if s.deps.Exercises == nil {
		s.writeError(w, r, problem.New(problem.NotFound, "error.exercisesDisabled"))
		return false
	}
	return true
}

// studentOf is the student whose cookie the request carries.
func (s *Server) studentOf(r *http.Request) (exercises.Student, bool) {
	c, err := r.Cookie(StudentCookie)
	if err != nil || s.deps.Exercises == nil {
		return exercises.Student{}, false
	}
	return s.deps.Exercises.Class().ByToken(c.Value)
}

// joinRequest is POST /api/classroom/students.
type joinRequest struct {
	Name string `json:"name"`
}

// JoinClass is POST /api/classroom/students {"name"}: 201 with the
// student's Kafka identity and their cookie.
func (s *Server) JoinClass(w http.ResponseWriter, r *http.Request) {
	if !s.exercisesEnabled(w, r) {
		return
	}
	var req joinRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := s.deps.Exercises.Class().Join(r.Context(), req.Name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: StudentCookie, Value: st.Token, Path: "/", Expires: time.Now().Add(24 * time.Hour),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusCreated, st)
}

// GetMe is GET /api/classroom/students/me: the student's own identity,
// password included.
func (s *Server) GetMe(w http.ResponseWriter, r *http.Request) {
	if !s.exercisesEnabled(w, r) {
		return
	}
	st, ok := s.studentOf(r)
	if !ok {
		s.writeError(w, r, s.notAStudent(r, problem.NotFound))
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	httpx.WriteJSON(w, http.StatusOK, st)
}

// studentSummary is a student as the teacher's list shows them.
type studentSummary struct {
	Name     string    `json:"name"`
	JoinedAt time.Time `json:"joinedAt"`
	Topic    string    `json:"topic"`
	Username string    `json:"username,omitempty"`
	Managed  bool      `json:"managed"`
}

// ListStudents is GET /api/classroom/students (the teacher's): the class
// without passwords.
func (s *Server) ListStudents(w http.ResponseWriter, r *http.Request) {
	if !s.exercisesEnabled(w, r) {
		return
	}
	if httpx.RoleOf(r) != httpx.Teacher {
		s.writeError(w, r, problem.New(problem.Forbidden, "error.studentView"))
		return
	}
	out := []studentSummary{}
	for _, st := range s.deps.Exercises.Class().Students() {
		out = append(out, studentSummary{Name: st.Name, JoinedAt: st.JoinedAt, Topic: st.Kafka.Topic, Username: st.Kafka.Username, Managed: st.Kafka.Managed})
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"students": out})
}

// RemoveStudent is DELETE /api/classroom/students/{name}?topics=keep|delete
// (the teacher's: the router lets only the teacher write): the student
// leaves the class — name free, cookie dead, Kafka user and ACLs revoked —
// and their topics and groups are kept (the default: their name stays
// taken while they exist) or deleted. 204; 404 error.noSuchStudent.
func (s *Server) RemoveStudent(w http.ResponseWriter, r *http.Request) {
	if !s.exercisesEnabled(w, r) {
		return
	}
	var deleteNames bool
	switch topics := r.URL.Query().Get("topics"); topics {
	case "", "keep":
	case "delete":
		deleteNames = true
	default:
		s.writeError(w, r, problem.New(problem.Invalid, "error.removeTopicsChoice", "topics", topics))
		return
	}
	if err := s.deps.Exercises.Remove(r.Context(), httpx.PathParam(r, "name"), deleteNames); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// notAStudent is the refusal of a request that is no student's: a
// browser whose student cookie the class does not know (the teacher
// removed them, or the server started without its class file) is told
// so and to join again.
func (s *Server) notAStudent(r *http.Request, kind problem.Kind) error {
	if c, err := r.Cookie(StudentCookie); err == nil && c.Value != "" {
		return problem.New(kind, "error.studentForgotten")
	}
	return problem.New(kind, "error.notAStudent")
}
