package web

import (
	"net/http"

	"github.com/offsetlab/offsetlab/web/httpx"
)

// identify gives every request its role: the teacher's unless classroom
// mode is on, then the teacher's only with a live session cookie.
func (s *Server) identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who, csrf := httpx.Teacher, ""
		if s.access.Classroom {
			who = httpx.Student
			if c, err := r.Cookie(teacherCookie); err == nil {
				if sess := s.auth.session(c.Value); sess != nil {
					who, csrf = httpx.Teacher, sess.csrf
				}
			}
		}
		next.ServeHTTP(w, r.WithContext(httpx.WithRole(r.Context(), who, csrf)))
	})
}
