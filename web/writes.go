package web

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/api"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// guardWrites lets a state-changing request through only from the teacher
// (and, in classroom mode, with the session's CSRF token), one at a time:
// two teacher tabs clicking at once never interleave a processor run with a
// transaction step. It reads the whole body first, so a client that sends
// its body slowly holds no one else up. It runs after sameOriginWrites and
// limitBody.
func (s *Server) guardWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if safeMethod(r.Method) || studentWrite(r) {
			next.ServeHTTP(w, r)
			return
		}
		if httpx.RoleOf(r) != httpx.Teacher {
			if c, err := r.Cookie(teacherCookie); err == nil && c.Value != "" {
				// A teacher's page that outlived its session: the
				// server restarted (sessions do not survive it).
				httpx.Refuse(w, problem.Forbidden, "error.teacherSessionEnded")
				return
			}
			httpx.Refuse(w, problem.Forbidden, "error.studentView")
			return
		}
		if s.deps.Lab.ReadOnly() {
			httpx.Refuse(w, problem.Forbidden, "error.readOnly", "brokers", strings.Join(s.deps.Lab.Brokers(), ","))
			return
		}
		if s.access.Classroom {
			want, got := httpx.CSRFTokenOf(r), r.Header.Get(csrfHeader)
			if want == "" || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
				httpx.Refuse(w, problem.Forbidden, "error.csrf")
				return
			}
		}
		r, err := httpx.BufferBody(r)
		if err != nil {
			httpx.WriteError(s.log, w, r, err)
			return
		}
		wait := time.NewTimer(requestTimeout)
		defer wait.Stop()
		select {
		case s.oneWrite <- struct{}{}:
		case <-r.Context().Done():
			return
		case <-wait.C:
			httpx.Refuse(w, problem.Conflict, "error.actionBusy")
			return
		}
		defer func() { <-s.oneWrite }()
		next.ServeHTTP(w, r)
	})
}

// studentWrite is the one write anyone may send: a student joining the
// class (POST /api/classroom/students). It still passes the same-origin
// check and the body limits; it changes no topic, and the class bounds
// how many join (exercises.MaxStudents).
func studentWrite(r *http.Request) bool {
	return r.Method == http.MethodPost && r.URL.Path == api.JoinPath
}
