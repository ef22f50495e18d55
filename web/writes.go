package web

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// guardWrites lets a state-changing request through only from the teacher
// (and, in classroom mode, with the session's CSRF token), one at a time:
// two teacher tabs clicking at once never interleave a processor run with a
// transaction step. It reads the whole body first, so a client that sends
// its body slowly holds no one else up. It runs after sameOriginWrites and
// limitBody.
func (s *Server) guardWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if safeMethod(r.Method) {
			next.ServeHTTP(w, r)
			return
		}
		if roleOf(r) != teacherRole {
			refuse(w, problem.Forbidden, "error.studentView")
			return
		}
		if s.deps.Lab.ReadOnly() {
			refuse(w, problem.Forbidden, "error.readOnly", "brokers", strings.Join(s.deps.Lab.Brokers(), ","))
			return
		}
		if s.access.Classroom {
			sess := sessionOf(r)
			got := r.Header.Get(csrfHeader)
			if sess == nil || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.csrf)) != 1 {
				refuse(w, problem.Forbidden, "error.csrf")
				return
			}
		}
		r, err := bufferBody(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		wait := time.NewTimer(requestTimeout)
		defer wait.Stop()
		select {
		case s.oneWrite <- struct{}{}:
		case <-r.Context().Done():
			return
		case <-wait.C:
			refuse(w, problem.Conflict, "error.actionBusy")
			return
		}
		defer func() { <-s.oneWrite }()
		next.ServeHTTP(w, r)
	})
}
