package httpx

import (
	"context"
	"net/http"
)

// Role is who sent a request: the teacher, who may change things, or a
// student of a classroom, who may only watch.
type Role int

// The two roles; a request nobody identified is the teacher's.
const (
	Teacher Role = iota
	Student
)

// String is the role's name as the pages and the API spell it: "teacher"
// or "student".
func (r Role) String() string {
	if r == Teacher {
		return "teacher"
	}
	return "student"
}

type ctxKey int

const (
	roleKey ctxKey = iota
	csrfKey
)

// WithRole is ctx carrying who sent the request and, for a teacher logged
// in by the classroom's one-time link, the session's CSRF token (empty
// otherwise). The web package's identify middleware calls it.
func WithRole(ctx context.Context, who Role, csrfToken string) context.Context {
	ctx = context.WithValue(ctx, roleKey, who)
	if csrfToken != "" {
		ctx = context.WithValue(ctx, csrfKey, csrfToken)
	}
	return ctx
}

// RoleOf is the role WithRole gave the request; the teacher's without it.
func RoleOf(r *http.Request) Role {
	if v, ok := r.Context().Value(roleKey).(Role); ok {
		return v
	}
	return Teacher
}

// CSRFTokenOf is the teacher session's CSRF token of a classroom request,
// which the page sends back in X-CSRF-Token; empty without a session.
func CSRFTokenOf(r *http.Request) string {
	s, _ := r.Context().Value(csrfKey).(string)
	return s
}
