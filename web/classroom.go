package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/offsetlab/offsetlab/internal/lessons"
)

// Access says who may use the server and how: the listen address (for the
// Host allowlist and the links) and whether classroom mode is on. The zero
// value is the single-user default: every request is the teacher's, and
// only loopback host names are accepted.
type Access struct {
	// Classroom exposes a read-only student view: a request is the
	// teacher's only with the cookie set by the one-time login link, and
	// every state-changing request of anyone else is refused with 403.
	Classroom bool
	// ListenAddr is the host:port the server bound; it turns on the Host
	// allowlist. Empty (a handler embedded in tests, served on a port
	// chosen later) accepts any Host.
	ListenAddr string
	// AllowedHosts are further Host header values to accept: a name or
	// address (any port) or name:port.
	AllowedHosts []string
	// JoinURL is what students open. Empty derives it from ListenAddr,
	// with this machine's network address when it listens on all of them.
	JoinURL string
}

// Option configures a Server.
type Option func(*Server)

// WithAccess sets who may use the server (see Access).
func WithAccess(a Access) Option {
	return func(s *Server) { s.access = a }
}

// role is who sent a request.
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

// Names of the cookie and header of the teacher's session.
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

// JoinURL is the address students open in classroom mode.
func (s *Server) JoinURL() string { return s.joinURL }

// localAddr is the listen address as this machine reaches it: loopback
// when the server listens on every interface.
func (s *Server) localAddr() string {
	host, port, err := net.SplitHostPort(s.access.ListenAddr)
	if err != nil {
		return s.access.ListenAddr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// deriveJoinURL picks the URL students open: the listen address, or, when
// the server listens on every interface, this machine's first private
// network address (then any non-loopback one) with the port.
func deriveJoinURL(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil || listen == "" {
		return ""
	}
	ip := net.ParseIP(host)
	if host != "" && (ip == nil || !ip.IsUnspecified()) {
		return "http://" + net.JoinHostPort(host, port) + "/"
	}
	var best net.IP
	for _, a := range interfaceIPs() {
		switch {
		case a.IsLoopback() || a.IsLinkLocalUnicast() || a.To4() == nil:
		case best == nil, a.IsPrivate() && !best.IsPrivate():
			best = a
		}
	}
	if best == nil {
		return "http://" + net.JoinHostPort("127.0.0.1", port) + "/"
	}
	return "http://" + net.JoinHostPort(best.String(), port) + "/"
}

// interfaceIPs lists this machine's addresses on interfaces that are up,
// leaving out container and VM bridges, which students cannot reach.
func interfaceIPs() []net.IP {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var out []net.IP
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 {
			continue
		}
		if n := ifc.Name; strings.HasPrefix(n, "docker") || strings.HasPrefix(n, "br-") || strings.HasPrefix(n, "veth") || strings.HasPrefix(n, "virbr") {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				out = append(out, n.IP)
			}
		}
	}
	return out
}

// ---- Host allowlist ---------------------------------------------------------

// hostAllowed reports whether a Host header names this server. A page
// whose DNS name was rebound to 127.0.0.1 sends its own name as Host, so
// accepting only loopback names, the listen address, this machine's own
// addresses (when listening on all of them), the join URL's host and the
// --allowed-hosts defeats DNS rebinding.
func (s *Server) hostAllowed(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, ""
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if s.access.ListenAddr == "" {
		return true // no address to check against (see Access.ListenAddr)
	}
	if host == "" {
		return false
	}
	for _, h := range s.access.AllowedHosts {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if ah, ap, err := net.SplitHostPort(h); err == nil {
			if strings.Trim(ah, "[]") == host && ap == port {
				return true
			}
		} else if strings.Trim(h, "[]") == host {
			return true
		}
	}
	listenHost, listenPort, err := net.SplitHostPort(s.access.ListenAddr)
	if err != nil {
		return isLoopbackName(host)
	}
	if port == "" {
		port = "80"
	}
	if port != listenPort {
		return false
	}
	if isLoopbackName(host) {
		return true
	}
	if strings.EqualFold(strings.Trim(listenHost, "[]"), host) {
		return true
	}
	if u, err := url.Parse(s.joinURL); err == nil && strings.EqualFold(u.Hostname(), host) {
		return true
	}
	lip := net.ParseIP(listenHost)
	if listenHost != "" && (lip == nil || !lip.IsUnspecified()) {
		return false
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	for _, a := range interfaceIPs() {
		if a.Equal(ip) {
			return true
		}
	}
	return false
}

func isLoopbackName(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkHost answers 421 to a request whose Host is not this server's.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			s.log.Warn("request for a foreign host refused", "host", r.Host, "path", r.URL.Path, "remote", r.RemoteAddr)
			writeJSON(w, http.StatusMisdirectedRequest, map[string]string{"error": fmt.Sprintf(
				"this Offset Lab does not answer to the host name %q; open it by the address it printed, or start it with --allowed-hosts %s", r.Host, hostOnly(r.Host))})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// ---- roles and writes -----------------------------------------------------

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

// safeMethod is a request that changes nothing.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// guardWrites lets a state-changing request through only from the teacher
// (and, in classroom mode, with the session's CSRF token), one at a time:
// two teacher tabs clicking at once never interleave a processor run with a
// transaction step. It runs after sameOriginWrites.
func (s *Server) guardWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if safeMethod(r.Method) {
			next.ServeHTTP(w, r)
			return
		}
		if roleOf(r) != teacherRole {
			writeErrorBody(w, http.StatusForbidden, "This is the student view of a classroom: only the teacher can change anything here. You can still watch, scroll and select offsets.", "error.studentView")
			return
		}
		if s.access.Classroom {
			sess := sessionOf(r)
			got := r.Header.Get(csrfHeader)
			if sess == nil || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.csrf)) != 1 {
				writeErrorBody(w, http.StatusForbidden, "This request did not come from the teacher's page (its CSRF token is missing or stale). Reload the page and try again.", "error.csrf")
				return
			}
		}
		wait := time.NewTimer(requestTimeout)
		defer wait.Stop()
		select {
		case s.actions <- struct{}{}:
		case <-r.Context().Done():
			return
		case <-wait.C:
			writeErrorBody(w, http.StatusConflict, "Another action is still running (from another tab?); try again when it has finished.", "error.actionBusy")
			return
		}
		defer func() { <-s.actions }()
		next.ServeHTTP(w, r)
	})
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
		fmt.Fprintln(w, "This teacher login link is not valid (each link works once). Use the newest link in the Offset Lab server's log.")
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

// ---- classroom status ----------------------------------------------------

// partitionRef names a partition.
type partitionRef struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
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
	// student pages show as it progresses.
	LessonRun string `json:"lessonRun,omitempty"`
}

func (s *Server) getClassroom(w http.ResponseWriter, r *http.Request) {
	v := classroomView{Classroom: s.access.Classroom, Role: roleOf(r).String(), Students: s.students.Load(), TeacherPartition: s.teacherAt.Load()}
	if s.access.Classroom {
		v.JoinURL = s.joinURL
	}
	if id := s.lessonRun.Load(); id != nil {
		v.LessonRun = *id
	}
	writeJSON(w, http.StatusOK, v)
}

// lessonTracker remembers the lesson run the teacher drove last (only the
// teacher can start or step one), for the students' pages to follow.
type lessonTracker struct {
	Lessons
	last *atomic.Pointer[string]
}

func (l lessonTracker) note(st lessons.RunState, err error) (lessons.RunState, error) {
	if err == nil && st.ID != "" {
		l.last.Store(&st.ID)
	}
	return st, err
}

// Start starts a run and remembers it.
func (l lessonTracker) Start(id string) (lessons.RunState, error) { return l.note(l.Lessons.Start(id)) }

// Next runs the next step and remembers the run.
func (l lessonTracker) Next(ctx context.Context, id string) (lessons.RunState, error) {
	return l.note(l.Lessons.Next(ctx, id))
}

// Finish runs the remaining steps and remembers the run.
func (l lessonTracker) Finish(ctx context.Context, id string) (lessons.RunState, error) {
	return l.note(l.Lessons.Finish(ctx, id))
}

// Reset resets the run and remembers it.
func (l lessonTracker) Reset(id string) (lessons.RunState, error) { return l.note(l.Lessons.Reset(id)) }

// watching counts a websocket viewer by role while it is connected and
// remembers the partition a teacher opened, for the students to follow.
func (s *Server) watching(r *http.Request, topic string, partition int32) (done func()) {
	if roleOf(r) == teacherRole {
		s.teacherAt.Store(&partitionRef{Topic: topic, Partition: partition})
		return func() {}
	}
	s.students.Add(1)
	return func() { s.students.Add(-1) }
}

// classroomState is the Server's classroom bookkeeping.
type classroomState struct {
	auth      *teacherAuth
	joinURL   string
	actions   chan struct{} // a one-slot semaphore: one state change at a time
	faults    *faultLimiter
	students  atomic.Int64
	teacherAt atomic.Pointer[partitionRef]
	lessonRun atomic.Pointer[string]
}

func newClassroomState(a Access) *classroomState {
	join := a.JoinURL
	if join == "" && a.Classroom {
		join = deriveJoinURL(a.ListenAddr)
	}
	return &classroomState{auth: newTeacherAuth(), joinURL: join, actions: make(chan struct{}, 1), faults: newFaultLimiter(faultRate, faultBurst)}
}

// ---- fault rate limit --------------------------------------------------

// Fault actions (a produce with a fault, a processor run, a transaction
// crash) are limited per role to faultRate a second with bursts of
// faultBurst, so a stuck key or a looping script cannot flood the broker.
const (
	faultRate  = 3.0
	faultBurst = 6
)

// faultLimiter is a token bucket per role.
type faultLimiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	buckets map[role]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newFaultLimiter(rate float64, burst int) *faultLimiter {
	return &faultLimiter{rate: rate, burst: float64(burst), buckets: map[role]*bucket{}, now: time.Now}
}

// allow takes a token from who's bucket, reporting false when it is empty.
func (l *faultLimiter) allow(who role) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.buckets[who]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[who] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// allowFault answers 429 and reports false when the caller's fault
// actions come faster than the limit.
func (s *Server) allowFault(w http.ResponseWriter, r *http.Request) bool {
	if s.faults.allow(roleOf(r)) {
		return true
	}
	w.Header().Set("Retry-After", "1")
	writeErrorBody(w, http.StatusTooManyRequests, "Too many fault actions in a row: at most "+
		strconv.Itoa(int(faultRate))+" a second ("+strconv.Itoa(faultBurst)+" at once). Wait a second and try again.",
		"error.faultRate", "rate", strconv.Itoa(int(faultRate)), "burst", strconv.Itoa(faultBurst))
	return false
}
