package web

import (
	"context"
	"net/http"
)

// role is who sent a request: the teacher, who may change things, or a
// student of a classroom, who may only watch.
type role int

const (
	teacherRole role = iota
	studentRole
)

func (r role) String() string {
	if r == teacherRole {
		return "teacher"
	}
	return "student"
}

type ctxKey int

const (
	roleKey ctxKey = iota
	sessionKey
)

// roleOf is the role identify gave the request; the teacher's without it.
func roleOf(r *http.Request) role {
	if v, ok := r.Context().Value(roleKey).(role); ok {
		return v
	}
	return teacherRole
}

// sessionOf is the teacher session of a classroom request, or nil.
func sessionOf(r *http.Request) *teacherSession {
	s, _ := r.Context().Value(sessionKey).(*teacherSession)
	return s
}

// identify gives every request its role: the teacher's unless classroom
// mode is on, then the teacher's only with a live session cookie.
func (s *Server) identify(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := teacherRole
		ctx := r.Context()
		if s.access.Classroom {
			who = studentRole
			if c, err := r.Cookie(teacherCookie); err == nil {
				if sess := s.auth.session(c.Value); sess != nil {
					who = teacherRole
					ctx = context.WithValue(ctx, sessionKey, sess)
				}
			}
		}
		ctx = context.WithValue(ctx, roleKey, who)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}
