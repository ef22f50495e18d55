package web

import (
	"net"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// Limits bounds what clients can make the server hold at once. The zero
// value picks the defaults below; each has a flag in cmd/server.
type Limits struct {
	// Reads is how many expensive reads (a partition's log or records,
	// each up to 5,000 offsets decoded and encoded) run at once; more
	// wait in line up to ReadQueueWait, then get 503 with Retry-After.
	Reads int
	// ReadsPerClient is how many of those one client address may run at
	// once; one more gets 429 with Retry-After at once.
	ReadsPerClient int
	// ReadQueueWait is how long an expensive read waits for its turn.
	ReadQueueWait time.Duration
	// Scans is how many scans of a partition (search, map, jump, seek
	// by time, the page's download reads) run at once, in a line of
	// their own, and ScansPerClient how many of those one client address
	// may run: a scan reads and decodes up to hundreds of MiB, so a flood
	// of them must not keep the window reads above from a core. They
	// wait in line up to ReadQueueWait as reads do.
	Scans          int
	ScansPerClient int
	// Viewers is how many live views (websockets) the server keeps
	// open; ViewersPerClient how many one client address may open.
	Viewers          int
	ViewersPerClient int
	// TeacherViewers of the Viewers are the teacher's in classroom
	// mode: students together open at most Viewers-TeacherViewers, so
	// the teacher's views open whatever the class holds. The teacher is
	// counted as one client of its own, whatever its address, that may
	// open the larger of ViewersPerClient and TeacherViewers.
	TeacherViewers int
	// IdleTimeout closes a keep-alive connection idle this long.
	// ResponseTimeout cuts a log or records answer not written within it
	// (a client that stopped reading), so its memory returns.
	IdleTimeout     time.Duration
	ResponseTimeout time.Duration
	// JoinsPerClient is how many students one client address may join
	// in a burst; past it, one more every JoinEvery (a class behind one
	// school address still joins in a few minutes, a script cannot fill
	// the class in seconds). Over it: 429 with Retry-After.
	JoinsPerClient int
	JoinEvery      time.Duration
	// LongPollsPerClient is how many long polls of the results
	// (…/results?after=) one client address may hold open; one more
	// gets 429 with Retry-After at once. Each holds a goroutine and a
	// connection for up to 25 s.
	LongPollsPerClient int
}

// Default limits. A read holds at most the inspector's answer budget (8 MiB
// of entries, whatever the records hold) and its encoding while it is
// decoded and written, so 8 at once bound that memory to ~100 MB; a
// scan holds one fetch and one decompressed batch; a classroom of a
// hundred students with two tabs each needs 200 viewers (each ~50–130 KiB).
const (
	DefaultReads            = 8
	DefaultReadsPerClient   = 4
	DefaultReadQueueWait    = 5 * time.Second
	DefaultScansPerClient   = 4
	DefaultViewers          = 500
	DefaultViewersPerClient = 50
	DefaultTeacherViewers   = 50
	DefaultIdleTimeout      = 60 * time.Second
	DefaultResponseTimeout  = 20 * time.Second

	DefaultJoinsPerClient     = 40
	DefaultJoinEvery          = 2 * time.Second
	DefaultLongPollsPerClient = 16
)

// DefaultScans is half the cores Go may use (at least one): scans are
// CPU-bound (decompressing, decoding, and the embedded broker serving
// their fetches), so however many students search at once, the other
// half stays free for the window reads every open page makes, whose
// latency then stays near what it is on an idle server.
func DefaultScans() int { return max(1, runtime.GOMAXPROCS(0)/2) }

func (l Limits) withDefaults() Limits {
	if l.Reads <= 0 {
		l.Reads = DefaultReads
	}
	if l.ReadsPerClient <= 0 {
		l.ReadsPerClient = DefaultReadsPerClient
	}
	if l.Scans <= 0 {
		l.Scans = DefaultScans()
	}
	if l.ScansPerClient <= 0 {
		l.ScansPerClient = DefaultScansPerClient
	}
	if l.ReadQueueWait <= 0 {
		l.ReadQueueWait = DefaultReadQueueWait
	}
	if l.Viewers <= 0 {
		l.Viewers = DefaultViewers
	}
	if l.ViewersPerClient <= 0 {
		l.ViewersPerClient = DefaultViewersPerClient
	}
	if l.TeacherViewers <= 0 {
		l.TeacherViewers = DefaultTeacherViewers
	}
	l.TeacherViewers = min(l.TeacherViewers, l.Viewers)
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.ResponseTimeout <= 0 {
		l.ResponseTimeout = DefaultResponseTimeout
	}
	if l.JoinsPerClient <= 0 {
		l.JoinsPerClient = DefaultJoinsPerClient
	}
	if l.JoinEvery <= 0 {
		l.JoinEvery = DefaultJoinEvery
	}
	if l.LongPollsPerClient <= 0 {
		l.LongPollsPerClient = DefaultLongPollsPerClient
	}
	return l
}

// WithLimits sets the server's limits (see Limits).
func WithLimits(l Limits) Option {
	return func(s *Server) { s.limits = l }
}

// HTTP server timeouts (see HTTPServer): headers, then the whole request,
// must arrive in time; an action's answer is cut after the API's timeout
// plus a margin.
const (
	readHeaderTimeout = 10 * time.Second
	readBodyTimeout   = 30 * time.Second
	writeTimeout      = requestTimeout + 15*time.Second
	maxHeaderBytes    = 64 << 10
)

// HTTPServer returns an http.Server for the handler with timeouts that
// cut slow or silent clients: headers within 10 s, a whole request within
// 30 s, a response within the API's timeout plus 15 s (Limits.
// ResponseTimeout for a log or records read), idle keep-alive connections
// after Limits.IdleTimeout. The websocket clears these deadlines for its
// own connection.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readBodyTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       s.limits.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// clientAddr is the address a request came from, without its port: the
// unit of the per-client limits.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// perClient counts what each client address holds.
type perClient struct {
	mu    sync.Mutex
	total int
	by    map[string]int
}

// take counts one more for client unless that would pass max for it or
// total for everyone; it reports which limit was hit.
func (p *perClient) take(client string, max, total int) (ok, clientFull bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.by == nil {
		p.by = map[string]int{}
	}
	if p.by[client] >= max {
		return false, true
	}
	if total > 0 && p.total >= total {
		return false, false
	}
	p.by[client]++
	p.total++
	return true, false
}

// heldBy is what client holds.
func (p *perClient) heldBy(client string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.by[client]
}

func (p *perClient) give(client string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total--
	if p.by[client]--; p.by[client] <= 0 {
		delete(p.by, client)
	}
}

// readLimiter runs at most Limits.Reads expensive reads at once, and
// Limits.ReadsPerClient per client (or, for scans, Limits.Scans and
// Limits.ScansPerClient, in a line of their own). A read keeps its turn
// until its response is written, so a client that stops reading holds one
// turn (for at most Limits.ResponseTimeout), never the server's memory.
type readLimiter struct {
	limits    Limits
	perClient int
	slots     chan struct{}
	clients   perClient
	// busyKey and perClientKey are the catalogue sentences of the 503
	// (every turn taken) and of the 429 (this client's turns taken).
	busyKey, perClientKey string
}

func newReadLimiter(l Limits) *readLimiter {
	return &readLimiter{limits: l, perClient: l.ReadsPerClient, slots: make(chan struct{}, l.Reads),
		busyKey: "error.readsBusy", perClientKey: "error.readsPerClient"}
}

func newScanLimiter(l Limits) *readLimiter {
	return &readLimiter{limits: l, perClient: l.ScansPerClient, slots: make(chan struct{}, l.Scans),
		busyKey: "error.scansBusy", perClientKey: "error.scansPerClient"}
}

// lender lends a running scan of client more turns, one a partition it
// searches beside the one its request holds: a turn is lent only when one
// is free now (never waited for) and the client has one left, so a
// topic-wide scan runs as many partitions at once as the scan limits
// allow and no more.
func (rl *readLimiter) lender(client string) func() (func(), bool) {
	return func() (func(), bool) {
		if ok, _ := rl.clients.take(client, rl.perClient, 0); !ok {
			return nil, false
		}
		select {
		case rl.slots <- struct{}{}:
			return func() {
				<-rl.slots
				rl.clients.give(client)
			}, true
		default:
			rl.clients.give(client)
			return nil, false
		}
	}
}

// scanOrRead sends a request that says it is part of a scan (the page's
// download reads a partition window after window, …/log?scan=1) to scans'
// line, any other to reads'.
func (s *Server) scanOrRead(next http.Handler) http.Handler {
	reads, scans := s.reads.limit(next), s.scans.limit(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("scan") == "1" {
			scans.ServeHTTP(w, r)
			return
		}
		reads.ServeHTTP(w, r)
	})
}

// limit is the middleware of the expensive read routes.
func (rl *readLimiter) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := clientAddr(r)
		if ok, _ := rl.clients.take(client, rl.perClient, 0); !ok {
			w.Header().Set("Retry-After", "1")
			httpx.Refuse(w, problem.TooFast, rl.perClientKey, "max", strconv.Itoa(rl.perClient))
			return
		}
		defer rl.clients.give(client)
		wait := time.NewTimer(rl.limits.ReadQueueWait)
		defer wait.Stop()
		select {
		case rl.slots <- struct{}{}:
		case <-r.Context().Done():
			return
		case <-wait.C:
			w.Header().Set("Retry-After", "2")
			httpx.Refuse(w, problem.Busy, rl.busyKey, "max", strconv.Itoa(cap(rl.slots)))
			return
		}
		defer func() { <-rl.slots }()
		next.ServeHTTP(&cutSlowReader{ResponseWriter: w, timeout: rl.limits.ResponseTimeout}, r)
	})
}

// cutSlowReader sets the connection's write deadline, ResponseTimeout
// ahead, when the answer starts: the time a client has to read it. The
// time the server took to read the broker and encode (slow on a busy
// machine, bounded by the API's request timeout) is not the client's, and
// a deadline set before it cut answers to clients that did read.
type cutSlowReader struct {
	http.ResponseWriter
	timeout time.Duration
	armed   bool
}

func (c *cutSlowReader) arm() {
	if !c.armed {
		c.armed = true
		_ = http.NewResponseController(c.ResponseWriter).SetWriteDeadline(time.Now().Add(c.timeout))
	}
}

// WriteHeader implements http.ResponseWriter.
func (c *cutSlowReader) WriteHeader(code int) {
	c.arm()
	c.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (c *cutSlowReader) Write(p []byte) (int, error) {
	c.arm()
	return c.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (c *cutSlowReader) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// viewerLimiter caps the open live views, in all and per client.
type viewerLimiter struct {
	limits  Limits
	clients perClient
}

// admit counts viewer, or answers 503 and reports false. A student may
// not take the teacher's views (Limits.TeacherViewers). The caller calls
// the returned release when the viewer leaves.
func (vl *viewerLimiter) admit(w http.ResponseWriter, viewer live.Viewer) (release func(), ok bool) {
	client, total, perClient := viewer.Client, vl.limits.Viewers, vl.limits.ViewersPerClient
	if viewer.Teacher {
		perClient = max(perClient, vl.limits.TeacherViewers)
	} else {
		total -= vl.limits.TeacherViewers
	}
	ok, clientFull := vl.clients.take(client, perClient, total)
	if !ok {
		w.Header().Set("Retry-After", "10")
		if clientFull {
			httpx.Refuse(w, problem.Busy, "error.viewersPerClient", "max", strconv.Itoa(perClient))
		} else {
			httpx.Refuse(w, problem.Busy, "error.viewersFull", "max", strconv.Itoa(total))
		}
		return nil, false
	}
	return func() { vl.clients.give(client) }, true
}

// teacherClient is the client name the teacher's views are counted
// under in classroom mode: not an address, so that no student shares it.
const teacherClient = "teacher"

// viewerOf is who opens a live view with r: in classroom mode the
// teacher (the session cookie) is one client of its own and may use the
// views and watched partitions reserved for it; students are counted by
// address. Without classroom mode everyone is the teacher, counted by
// address (every client is this machine).
func (s *Server) viewerOf(r *http.Request) live.Viewer {
	teacher := httpx.RoleOf(r) == httpx.Teacher
	if teacher && s.access.Classroom {
		return live.Viewer{Client: teacherClient, Teacher: true}
	}
	return live.Viewer{Client: clientAddr(r), Teacher: teacher}
}

// clearDeadlines lifts the server's read and write timeouts for a
// long-lived connection (the websocket), which bounds each write itself.
func clearDeadlines(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}

// maxJoinClients bounds the addresses joinLimiter remembers; past it the
// ones whose bucket is full again are forgotten.
const maxJoinClients = 4096

// joinLimiter is Limits.JoinsPerClient: a token bucket per client address.
type joinLimiter struct {
	burst int
	every time.Duration

	mu sync.Mutex
	by map[string]*rate.Limiter
}

// allow takes a join from client's bucket; it returns how long to wait
// when the bucket is empty.
func (j *joinLimiter) allow(client string, now time.Time) (bool, time.Duration) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.by == nil {
		j.by = map[string]*rate.Limiter{}
	}
	if len(j.by) >= maxJoinClients {
		for c, l := range j.by {
			if l.TokensAt(now) >= float64(j.burst) {
				delete(j.by, c)
			}
		}
	}
	lim := j.by[client]
	if lim == nil {
		lim = rate.NewLimiter(rate.Every(j.every), j.burst)
		j.by[client] = lim
	}
	if lim.AllowN(now, 1) {
		return true, 0
	}
	return false, j.every
}

// limitJoins is the middleware of the join route (Limits.JoinsPerClient).
func (s *Server) limitJoins(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := s.joins.allow(clientAddr(r), time.Now()); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(wait.Seconds()))))
			httpx.Refuse(w, problem.TooFast, "error.joinsPerClient", "max", strconv.Itoa(s.limits.JoinsPerClient))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limitLongPolls is the middleware of the results route: a long poll
// (?after=) takes one of the client address's Limits.LongPollsPerClient.
func (s *Server) limitLongPolls(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.Query().Has("after") {
			next.ServeHTTP(w, r)
			return
		}
		client := clientAddr(r)
		if ok, _ := s.polls.take(client, s.limits.LongPollsPerClient, 0); !ok {
			w.Header().Set("Retry-After", "2")
			httpx.Refuse(w, problem.TooFast, "error.longPollsPerClient", "max", strconv.Itoa(s.limits.LongPollsPerClient))
			return
		}
		defer s.polls.give(client)
		next.ServeHTTP(w, r)
	})
}
