package embedded

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"
)

// This file is the embedded broker's Kafka port guard: the listener that
// sits between TCP and kfake. kfake trusts its clients — it allocates
// whatever a 4-byte size prefix claims, panics on an API key it does not
// know, never times a request out and never limits connections — and it
// runs in our process, so one hostile packet would end the dashboard. The
// guard makes the port behave like an Apache Kafka listener instead: it
// admits a bounded number of connections, reads each request whole within a
// deadline into memory it grows as bytes arrive, checks it against what
// kfake serves and hands kfake only complete, parsable requests. Anything
// else closes that one connection, as Kafka does, with a rate-limited log
// line saying why. guard_conn.go is the per-connection part, guard_request.go
// the request checks, guard_records.go the check of produced record batches,
// compat.go the one answer we rewrite.

// PortLimits bounds what clients of the embedded broker's Kafka port can make
// the process hold. Zero fields take the defaults below, which follow
// Apache Kafka's broker settings where Kafka has one.
type PortLimits struct {
	// MaxRequestBytes is the largest request frame accepted, Kafka's
	// socket.request.max.bytes (default 100 MiB). A size prefix above it,
	// negative, or too short to hold a request header closes the
	// connection before anything is allocated for the frame.
	MaxRequestBytes int32
	// QueuedMaxRequestBytes bounds the bytes of requests larger than 16 KiB
	// that are being received or are waiting for kfake's answer, across
	// all connections (Kafka's queued.max.request.bytes). A request that
	// does not fit waits, without being read, until it fits or nothing
	// else is queued (so one request up to MaxRequestBytes always gets
	// through); its RequestTimeout keeps running. Default 64 MiB.
	// Requests of 16 KiB or less — metadata, fetches, offset commits, the
	// dashboard's own traffic — never wait for it.
	QueuedMaxRequestBytes int64
	// RequestTimeout is how long a request may take to arrive whole once
	// its first byte arrived, and a response to be taken whole by the
	// client. Default 30 s, the request.timeout.ms of Kafka's Java
	// clients: past it the client has given the request up anyway.
	RequestTimeout time.Duration
	// IdleTimeout closes a connection that has neither sent a request nor
	// received a response for this long, Kafka's connections.max.idle.ms
	// (default 10 minutes; Java clients close their own idle connections
	// at 9 minutes, just before the broker would).
	IdleTimeout time.Duration
	// MaxConnections caps open connections (Kafka's max.connections).
	// When it is reached, a new connection closes the connection that has
	// gone longest without a request, if that was at least a second ago,
	// and is refused otherwise. Default 1024.
	MaxConnections int
	// MaxConnectionsPerIP caps open connections from one remote address
	// (Kafka's max.connections.per.ip); a connection over it is refused.
	// Connections from this host to itself — the dashboard's own clients,
	// the teacher's tools — are not counted against it. Default 64.
	MaxConnectionsPerIP int
	// FailedAuthenticationDelay is how long the answer to a failed SASL
	// login is held before the connection closes, Kafka's
	// connection.failed.authentication.delay.ms (default 100 ms). Past
	// the first failedLoginsFree failures of an address within
	// failedLoginsWindow, each further failure of that address waits its
	// turn, one every ten delays (at most RequestTimeout), however many
	// connections it opens: guessing passwords slows to a crawl. Every
	// failure is counted per address and logged, one line per
	// logEvery.
	FailedAuthenticationDelay time.Duration
}

const (
	defaultMaxRequestBytes       = 100 << 20
	defaultQueuedMaxRequestBytes = 64 << 20
	defaultRequestTimeout        = 30 * time.Second
	defaultIdleTimeout           = 10 * time.Minute
	defaultMaxConnections        = 1024
	defaultMaxConnectionsPerIP   = 64

	// smallRequestBytes is the size up to which a request is read without
	// waiting for QueuedMaxRequestBytes, so that a client hogging the
	// budget with huge partial requests cannot stall anyone's metadata
	// or fetch requests. Its cost is bounded by MaxConnections.
	smallRequestBytes = 16 << 10
	// minRequestBytes is the smallest request: API key, version,
	// correlation id and client id length.
	minRequestBytes = 10
	// evictableAfter is how long a connection must have gone without a
	// request before a new connection may close it at MaxConnections.
	evictableAfter = time.Second
	// logEvery is the rate limit of each kind of refusal log line.
	logEvery = 10 * time.Second

	defaultFailedAuthenticationDelay = 100 * time.Millisecond
	// failedLoginsFree failures of one address within failedLoginsWindow
	// are answered after FailedAuthenticationDelay alone: a student who
	// mistypes a password a few times never waits longer.
	failedLoginsFree   = 10
	failedLoginsWindow = time.Minute
	// failedLoginsTracked bounds the addresses remembered; past it the
	// ones with nothing pending are forgotten.
	failedLoginsTracked = 4096
)

// DefaultPortLimits returns the limits that zero PortLimits fields take.
func DefaultPortLimits() PortLimits {
	return PortLimits{
		MaxRequestBytes:       defaultMaxRequestBytes,
		QueuedMaxRequestBytes: defaultQueuedMaxRequestBytes,
		RequestTimeout:        defaultRequestTimeout,
		IdleTimeout:           defaultIdleTimeout,
		MaxConnections:        defaultMaxConnections,
		MaxConnectionsPerIP:   defaultMaxConnectionsPerIP,

		FailedAuthenticationDelay: defaultFailedAuthenticationDelay,
	}
}

// withDefaults fills zero fields with the defaults and rejects negative ones.
func (l PortLimits) withDefaults() (PortLimits, error) {
	if l.MaxRequestBytes < 0 || l.QueuedMaxRequestBytes < 0 || l.RequestTimeout < 0 ||
		l.IdleTimeout < 0 || l.MaxConnections < 0 || l.MaxConnectionsPerIP < 0 || l.FailedAuthenticationDelay < 0 {
		return l, fmt.Errorf("embedded: Kafka port limits must not be negative: %+v", l)
	}
	d := DefaultPortLimits()
	if l.MaxRequestBytes == 0 {
		l.MaxRequestBytes = d.MaxRequestBytes
	}
	if l.QueuedMaxRequestBytes == 0 {
		l.QueuedMaxRequestBytes = d.QueuedMaxRequestBytes
	}
	if l.RequestTimeout == 0 {
		l.RequestTimeout = d.RequestTimeout
	}
	if l.IdleTimeout == 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.MaxConnections == 0 {
		l.MaxConnections = d.MaxConnections
	}
	if l.MaxConnectionsPerIP == 0 {
		l.MaxConnectionsPerIP = d.MaxConnectionsPerIP
	}
	if l.FailedAuthenticationDelay == 0 {
		l.FailedAuthenticationDelay = d.FailedAuthenticationDelay
	}
	if l.MaxRequestBytes < minRequestBytes {
		return l, fmt.Errorf("embedded: MaxRequestBytes %d is below the smallest Kafka request (%d bytes)", l.MaxRequestBytes, minRequestBytes)
	}
	return l, nil
}

// guardListener is the listener kfake accepts from. An acceptor goroutine
// takes TCP connections, applies the connection caps and passes each
// admitted one, wrapped in a guardConn, to kfake's Accept.
type guardListener struct {
	tcp     net.Listener
	limits  PortLimits
	log     *throttledLog
	budget  *byteBudget
	chunks  chunkPool // of partial requests, shared by all connections
	batches batchValidator
	logins  *failedLogins
	// shares are the classroom students' topic and partition shares;
	// set by Start before the acceptor starts, nil without.
	shares *studentShares
	// producerIDs rates each SASL user's InitProducerId but superuser's
	// (the dashboard's own); nil without a classroom.
	producerIDs *userRates
	superuser   string
	// api is what kfake serves; written once by start, before the
	// acceptor goroutine that reads it exists.
	api apiRanges
	// advertise, when set, is the address Addr reports, which kfake
	// names in Metadata: the host clients on other machines reach.
	advertise net.Addr

	conns     chan net.Conn // admitted connections for kfake's Accept
	closed    chan struct{}
	closeOnce sync.Once

	mu         sync.Mutex
	live       map[*guardConn]struct{}
	perIP      map[string]int
	evictAfter time.Duration // evictableAfter; tests change it
}

// newGuardListener wraps tcp. Nothing is accepted from tcp until start;
// the kernel's backlog holds early clients meanwhile.
func newGuardListener(tcp net.Listener, limits PortLimits, log *slog.Logger) *guardListener {
	closed := make(chan struct{})
	return &guardListener{
		tcp:    tcp,
		limits: limits,
		log:    newThrottledLog(log, logEvery),
		budget: newByteBudget(limits.QueuedMaxRequestBytes, closed),
		logins: newFailedLogins(limits.FailedAuthenticationDelay, limits.RequestTimeout),
		conns:  make(chan net.Conn),
		closed: closed,
		live:   make(map[*guardConn]struct{}),
		perIP:  make(map[string]int),

		evictAfter: evictableAfter,
	}
}

// start begins accepting TCP connections, checking requests against api.
func (l *guardListener) start(api apiRanges) {
	l.api = api
	go l.acceptLoop()
}

// Accept returns the next admitted connection. It fails only once the
// listener is closed: kfake stops accepting for good on any error.
func (l *guardListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops accepting. kfake closes the connections it holds itself.
func (l *guardListener) Close() error {
	err := net.ErrClosed
	l.closeOnce.Do(func() {
		close(l.closed)
		err = l.tcp.Close()
	})
	return err
}

// Addr is the TCP address, which kfake advertises to clients.
func (l *guardListener) Addr() net.Addr {
	if l.advertise != nil {
		return l.advertise
	}
	return l.tcp.Addr()
}

func (l *guardListener) acceptLoop() {
	var backoff time.Duration
	for {
		conn, err := l.tcp.Accept()
		if err != nil {
			select {
			case <-l.closed:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait and retry,
			// as net/http does, rather than stop serving.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			l.log.warn("accept", "Kafka port: cannot accept a connection; retrying", "error", err, "retryIn", backoff)
			select {
			case <-time.After(backoff):
			case <-l.closed:
				return
			}
			continue
		}
		backoff = 0
		gc, why := l.admit(conn)
		if gc == nil {
			// Logged before the close, so that whoever sees the
			// connection closed can also read why.
			l.log.warn(why.kind, "Kafka port: refused a connection", "remote", conn.RemoteAddr().String(), "reason", why.detail)
			conn.Close()
			continue
		}
		select {
		case l.conns <- gc:
		case <-l.closed:
			gc.Close()
			return
		}
	}
}

// admit applies the connection caps to conn and, if it may stay, lists
// and wraps it. At MaxConnections it closes the least recently used
// connection to make room.
func (l *guardListener) admit(conn net.Conn) (*guardConn, *refusal) {
	ip, sameHost := remoteIP(conn)
	now := time.Now()
	l.mu.Lock()
	if !sameHost && l.perIP[ip] >= l.limits.MaxConnectionsPerIP {
		l.mu.Unlock()
		return nil, &refusal{"refused: per-IP cap", fmt.Sprintf("%s already has %d connections (MaxConnectionsPerIP)", ip, l.limits.MaxConnectionsPerIP)}
	}
	var victim *guardConn
	if len(l.live) >= l.limits.MaxConnections {
		if victim = l.leastRecentlyUsedLocked(now); victim == nil {
			l.mu.Unlock()
			return nil, &refusal{"refused: connection cap", fmt.Sprintf("%d connections are open and all of them sent a request within %v (MaxConnections)", len(l.live), l.evictAfter)}
		}
		l.forgetLocked(victim)
	}
	gc := newGuardConn(conn, l, ip, now)
	gc.listed = true
	l.live[gc] = struct{}{}
	l.perIP[ip]++
	l.mu.Unlock()
	if victim != nil {
		victim.Close()
		l.log.warn("evicted", "Kafka port: closed the least recently used connection to admit a new one (MaxConnections)",
			"closed", victim.RemoteAddr().String(), "idle", now.Sub(victim.lastUsedAt()).Round(time.Millisecond), "admitted", conn.RemoteAddr().String())
	}
	return gc, nil
}

// leastRecentlyUsedLocked is the connection that has gone longest without
// a request, if that is at least l.evictAfter; nil otherwise.
func (l *guardListener) leastRecentlyUsedLocked(now time.Time) *guardConn {
	var lru *guardConn
	var oldest time.Time
	for c := range l.live {
		if used := c.lastUsedAt(); lru == nil || used.Before(oldest) {
			lru, oldest = c, used
		}
	}
	if lru == nil || now.Sub(oldest) < l.evictAfter {
		return nil
	}
	return lru
}

// forget unlists a closed connection; calls after the first do nothing.
func (l *guardListener) forget(c *guardConn) {
	l.mu.Lock()
	l.forgetLocked(c)
	l.mu.Unlock()
}

func (l *guardListener) forgetLocked(c *guardConn) {
	if !c.listed {
		return
	}
	c.listed = false
	delete(l.live, c)
	if l.perIP[c.ip]--; l.perIP[c.ip] <= 0 {
		delete(l.perIP, c.ip)
	}
}

// openConns is the number of listed connections.
func (l *guardListener) openConns() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.live)
}

// remoteIP is the connection's remote IP and whether it is this host
// talking to itself (the same address on both ends).
func remoteIP(conn net.Conn) (ip string, sameHost bool) {
	return addrIP(conn.RemoteAddr(), conn.LocalAddr())
}

// refusal is why the guard refused a connection or closed one; kind keys
// the log line's rate limit.
type refusal struct {
	kind   string
	detail string
}

func (r *refusal) Error() string { return "Kafka port: " + r.detail }

// byteBudget is QueuedMaxRequestBytes: bytes reserved by requests being
// received or awaiting kfake's answer.
type byteBudget struct {
	limit  int64
	closed <-chan struct{}

	mu      sync.Mutex
	used    int64
	changed chan struct{} // closed and replaced at every release
}

func newByteBudget(limit int64, closed <-chan struct{}) *byteBudget {
	return &byteBudget{limit: limit, closed: closed, changed: make(chan struct{})}
}

// acquire reserves n bytes, waiting until they fit or nothing is reserved.
// It reports false if the deadline passes or the listener closes first.
func (b *byteBudget) acquire(n int64, deadline time.Time) bool {
	var timer *time.Timer
	for {
		if !time.Now().Before(deadline) {
			// The timer may not have fired yet: a room freed at
			// the deadline must not go to a request already late.
			return false
		}
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.limit {
			b.used += n
			b.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return true
		}
		changed := b.changed
		b.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(time.Until(deadline))
		}
		select {
		case <-changed:
		case <-timer.C:
			return false
		case <-b.closed:
			timer.Stop()
			return false
		}
	}
}

// release returns n reserved bytes.
func (b *byteBudget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// inUse is the number of reserved bytes.
func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// throttledLog writes at most one line per kind of event per interval and
// says how many it held back since the last one, so a flood of hostile
// connections cannot flood the log.
type throttledLog struct {
	log   *slog.Logger
	every time.Duration

	mu    sync.Mutex
	kinds map[string]*throttle
}

type throttle struct {
	last       time.Time
	suppressed int
}

func newThrottledLog(log *slog.Logger, every time.Duration) *throttledLog {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &throttledLog{log: log, every: every, kinds: make(map[string]*throttle)}
}

// warn logs msg with args at warning level unless a line of the same kind
// was logged within the interval.
func (t *throttledLog) warn(kind, msg string, args ...any) {
	now := time.Now()
	t.mu.Lock()
	th, ok := t.kinds[kind]
	if !ok {
		th = &throttle{}
		t.kinds[kind] = th
	}
	if !th.last.IsZero() && now.Sub(th.last) < t.every {
		th.suppressed++
		t.mu.Unlock()
		return
	}
	suppressed := th.suppressed
	th.last, th.suppressed = now, 0
	t.mu.Unlock()
	if suppressed > 0 {
		args = append(args, "alsoSinceLastLine", suppressed)
	}
	t.log.Warn(msg, args...)
}

// failedLogins counts failed SASL logins per remote address and decides
// how long each failure's answer is held (see
// PortLimits.FailedAuthenticationDelay).
type failedLogins struct {
	delay, step, max time.Duration

	mu     sync.Mutex
	byIP   map[string]*addressLogins
	counts map[string]int64 // every failure since start, per address
}

// addressLogins is one address's failures in its current window.
type addressLogins struct {
	since  time.Time // start of the window
	failed int       // failures in the window
	next   time.Time // when the next failure past the free ones may be answered
}

func newFailedLogins(delay, max time.Duration) *failedLogins {
	return &failedLogins{delay: delay, step: 10 * delay, max: max, byIP: map[string]*addressLogins{}, counts: map[string]int64{}}
}

// fail counts a failed login of ip at now and returns how long to hold
// its answer and the address's failures in the window.
func (f *failedLogins) fail(ip string, now time.Time) (time.Duration, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.byIP) >= failedLoginsTracked {
		f.forgetQuietLocked(now)
	}
	a := f.byIP[ip]
	if a == nil || now.Sub(a.since) > failedLoginsWindow && !a.next.After(now) {
		a = &addressLogins{since: now}
		f.byIP[ip] = a
	}
	a.failed++
	if len(f.counts) < failedLoginsTracked || f.counts[ip] > 0 {
		f.counts[ip]++
	}
	if a.failed <= failedLoginsFree {
		return f.delay, a.failed
	}
	slot := now
	if a.next.After(now) {
		slot = a.next
	}
	a.next = slot.Add(f.step)
	return min(max(slot.Sub(now), f.delay), f.max), a.failed
}

// forgetQuietLocked drops the addresses whose window ended with nothing
// pending.
func (f *failedLogins) forgetQuietLocked(now time.Time) {
	for ip, a := range f.byIP {
		if now.Sub(a.since) > failedLoginsWindow && !a.next.After(now) {
			delete(f.byIP, ip)
		}
	}
}

// total is ip's failed logins since start.
func (f *failedLogins) total(ip string) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[ip]
}

// Producer ids: each InitProducerId makes kfake keep a producer id, its
// state and a line of pids.log until it expires. A classroom student
// gets a burst of producerIDBurst, then one every producerIDEvery;
// past it the guard answers THROTTLING_QUOTA_EXCEEDED with the time to
// wait, as Kafka's producer id quota (KIP-936) does, and clients retry
// after it. What a student holds at once is capped too, inside the
// broker, which knows when an id expires: StudentMaxProducerIDs, with
// the classroom's expiration (ClassroomProducerIDExpiration).
const (
	producerIDBurst = 50
	producerIDEvery = time.Second
	// maxRatedUsers bounds the users remembered; past it the ones back
	// at a full burst are forgotten.
	maxRatedUsers = 4096
)

// userRates is a token bucket per user.
type userRates struct {
	burst int
	every time.Duration

	mu sync.Mutex
	by map[string]*userBucket
}

type userBucket struct {
	tokens float64
	at     time.Time
}

func newUserRates(burst int, every time.Duration) *userRates {
	return &userRates{burst: burst, every: every, by: map[string]*userBucket{}}
}

// take takes one token of user's bucket at now, or returns how long
// until one is there.
func (u *userRates) take(user string, now time.Time) time.Duration {
	u.mu.Lock()
	defer u.mu.Unlock()
	refill := func(b *userBucket) {
		b.tokens = min(float64(u.burst), b.tokens+float64(now.Sub(b.at))/float64(u.every))
		b.at = now
	}
	if len(u.by) >= maxRatedUsers {
		for name, b := range u.by {
			if refill(b); b.tokens >= float64(u.burst) {
				delete(u.by, name)
			}
		}
	}
	b := u.by[user]
	if b == nil {
		b = &userBucket{tokens: float64(u.burst), at: now}
		u.by[user] = b
	}
	refill(b)
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(u.every))
}
