package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
)

// Names of the cookie and header of the teacher's session in classroom
// mode, and how many teacher browsers may be logged in at once.
const (
	teacherCookie = "offsetlab_teacher"
	csrfHeader    = "X-CSRF-Token"
	maxSessions   = 32
)

// teacherSession is one browser logged in as the teacher. Its id is the
// cookie's value; csrf is what the page sends back in X-CSRF-Token.
type teacherSession struct {
	id      string
	csrf    string
	created time.Time
}

// teacherAuth holds the one-time login token and the teacher sessions.
// The token is only ever written to the server's log; using it creates a
// session and replaces it with a fresh one (logged again), so a link seen
// over the teacher's shoulder after use is worthless.
type teacherAuth struct {
	mu       sync.Mutex
	token    string
	sessions map[string]*teacherSession
}

func newTeacherAuth() *teacherAuth {
	return &teacherAuth{token: randomToken(), sessions: map[string]*teacherSession{}}
}

// randomToken is 256 bits from crypto/rand, URL-safe.
func randomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err)) // never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// currentToken is the login token that works now.
func (a *teacherAuth) currentToken() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.token
}

// login checks token and, if it is the current one, rotates it and opens
// a session. It returns nil for a wrong token.
func (a *teacherAuth) login(token string) *teacherSession {
	a.mu.Lock()
	defer a.mu.Unlock()
	if token == "" || subtle.ConstantTimeCompare([]byte(token), []byte(a.token)) != 1 {
		return nil
	}
	a.token = randomToken()
	if len(a.sessions) >= maxSessions {
		var oldest *teacherSession
		for _, s := range a.sessions {
			if oldest == nil || s.created.Before(oldest.created) {
				oldest = s
			}
		}
		delete(a.sessions, oldest.id)
	}
	s := &teacherSession{id: randomToken(), csrf: randomToken(), created: time.Now()}
	a.sessions[s.id] = s
	return s
}

func (a *teacherAuth) session(id string) *teacherSession {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// TeacherLoginURL is the one-time link that makes a browser the teacher in
// classroom mode, on an address the teacher's own machine can reach. It
// holds the secret token: log it for the teacher, never serve it. Empty
// when classroom mode is off.
func (s *Server) TeacherLoginURL() string {
	if !s.access.Classroom {
		return ""
	}
	return "http://" + s.localAddr() + "/teacher/login?token=" + url.QueryEscape(s.auth.currentToken())
}

// teacherLogin is GET /teacher/login?token=: the one-time link printed at
// start. It sets the session cookie and sends the browser to the
// dashboard, so the token leaves the address bar at once.
func (s *Server) teacherLogin(w http.ResponseWriter, r *http.Request) {
	if !s.access.Classroom {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	sess := s.auth.login(r.URL.Query().Get("token"))
	if sess == nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusForbidden)
		for _, lang := range catalog.Languages() { // a plain page: every language, one line each
			fmt.Fprintln(w, catalog.Text(lang, "error.teacherLinkInvalid", nil))
		}
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: teacherCookie, Value: sess.id, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
	s.log.Info("teacher logged in; the link used is spent. Another one-time teacher login link (for another browser):", "loginURL", s.TeacherLoginURL())
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
