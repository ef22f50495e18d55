package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// guardConn is one client connection as kfake sees it. Read hands kfake one
// complete, checked request frame at a time, read from the socket under
// the deadlines and the byte budget of PortLimits; Write frames kfake's
// responses, which releases the budget each answered request held and lets
// compat.go rewrite the one answer we change. Any refusal closes the
// connection: kfake sees the read fail and drops it, the client sees EOF.
//
// Like Kafka, which mutes a connection while one of its requests is in
// flight, the guard reads a connection's next request only once kfake has
// answered the previous one. kfake itself reads one request ahead and holds
// it while the previous one waits (a Fetch may wait for minutes), where no
// budget or deadline of ours could see it; a pipelining client's bytes wait
// in the kernel's socket buffer instead.
type guardConn struct {
	net.Conn
	l  *guardListener
	ip string

	listed   bool         // in l.live; guarded by l.mu
	lastUsed atomic.Int64 // unix nanos of the last whole request (or of accept)
	lastSeen atomic.Int64 // unix nanos of the last request or response: idleness

	// Only kfake's reader calls Read, one call at a time.
	handing   []byte // the checked frame being handed to kfake
	readErr   error
	loginUser string // the user a SCRAM exchange named in its first message

	mu       sync.Mutex
	closed   bool
	answered []queuedRequest // handed to kfake, response not yet written, in order
	unsent   int64           // budget of an acks=0 produce, released once handed over
	changed  chan struct{}   // closed and replaced when answered shrinks or the conn closes

	wmu sync.Mutex // one response write at a time, in order
	out []byte     // response bytes not yet framed

	closeOnce sync.Once
}

// queuedRequest is a request kfake holds until it writes its answer.
type queuedRequest struct {
	reserved int64         // bytes held in the budget
	compat   kmsg.Request  // set when compat.go may rewrite the answer
	login    *loginAttempt // set on a SaslAuthenticate
}

func newGuardConn(conn net.Conn, l *guardListener, ip string, now time.Time) *guardConn {
	c := &guardConn{Conn: conn, l: l, ip: ip, changed: make(chan struct{})}
	c.lastUsed.Store(now.UnixNano())
	c.lastSeen.Store(now.UnixNano())
	return c
}

func (c *guardConn) lastUsedAt() time.Time { return time.Unix(0, c.lastUsed.Load()) }

// errIdle closes a connection quiet for IdleTimeout; it is not logged.
var errIdle = errors.New("Kafka port: connection idle too long")

// Read implements net.Conn for kfake's reader.
func (c *guardConn) Read(p []byte) (int, error) {
	if len(c.handing) == 0 {
		if c.readErr != nil {
			return 0, c.readErr
		}
		var frame []byte
		var err error
		for frame == nil && err == nil { // nil, nil: the guard answered that one itself
			frame, err = c.nextRequest()
		}
		if err != nil {
			c.readErr = err
			var why *refusal
			if errors.As(err, &why) {
				c.l.log.warn(why.kind, "Kafka port: closed a connection", "remote", c.RemoteAddr().String(), "reason", why.detail)
			}
			c.Close()
			return 0, err
		}
		c.handing = frame
	}
	n := copy(p, c.handing)
	c.handing = c.handing[n:]
	if len(c.handing) == 0 {
		c.handing = nil
		c.mu.Lock()
		unsent := c.unsent
		c.unsent = 0
		c.mu.Unlock()
		c.l.budget.release(unsent)
	}
	return n, nil
}

// nextRequest reads, checks and queues the next request frame, size prefix
// included. Errors that a client's behaviour caused are *refusal.
func (c *guardConn) nextRequest() ([]byte, error) {
	if err := c.awaitAnswers(); err != nil {
		return nil, err
	}
	limits := c.l.limits
	var size [4]byte
	if err := c.awaitRequest(size[:1]); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(limits.RequestTimeout)
	if err := c.Conn.SetReadDeadline(deadline); err != nil {
		return nil, err
	}
	if _, err := io.ReadFull(c.Conn, size[1:]); err != nil {
		return nil, c.readFailure(err)
	}
	n := int32(binary.BigEndian.Uint32(size[:]))
	if err := checkFrameSize(n, limits.MaxRequestBytes); err != nil {
		return nil, err
	}
	var reserved int64
	if n > smallRequestBytes {
		if !c.l.budget.acquire(int64(n), deadline) {
			return nil, &refusal{"request timeout", fmt.Sprintf("a %d-byte request waited %v for room in QueuedMaxRequestBytes (%d)", n, limits.RequestTimeout, limits.QueuedMaxRequestBytes)}
		}
		reserved = int64(n)
	}
	frame, err := readFrame(c.Conn, size, n, deadline, &c.l.chunks)
	if err != nil {
		c.l.budget.release(reserved)
		return nil, c.readFailure(err)
	}
	req, why := c.l.api.check(frame, &c.l.batches, limits.RequestTimeout)
	if why != nil {
		c.l.budget.release(reserved)
		return nil, why
	}
	if init, ok := req.kreq.(*kmsg.InitProducerIDRequest); ok && c.l.producerIDs != nil && c.loginUser != "" && c.loginUser != c.l.superuser {
		if wait := c.l.producerIDs.take(c.loginUser, time.Now()); wait > 0 {
			c.l.budget.release(reserved)
			c.l.log.warn("producer id rate", "Kafka port: throttled a student's InitProducerId: their producer id rate is used",
				"user", c.loginUser, "remote", c.RemoteAddr().String(), "throttle", wait)
			resp := init.ResponseKind().(*kmsg.InitProducerIDResponse)
			resp.Version = init.Version
			resp.ErrorCode, resp.ThrottleMillis = kerr.ThrottlingQuotaExceeded.Code, int32(max(1, wait.Milliseconds()))
			resp.ProducerID, resp.ProducerEpoch = -1, -1
			if err := c.writeAnswer(req.corr, resp); err != nil {
				return nil, err
			}
			return nil, nil
		}
	}
	if c.l.shares != nil && req.kreq != nil {
		// Nothing is in flight on this connection (awaitAnswers), so an
		// answer of the guard's own keeps the answers in order.
		answer, rewritten := c.l.shares.apply(req.kreq, c.l.log, c.RemoteAddr().String())
		if answer != nil {
			c.l.budget.release(reserved)
			if err := c.writeAnswer(req.corr, answer); err != nil {
				return nil, err
			}
			return nil, nil
		}
		if rewritten {
			req.frame = reencode(req.header, req.kreq)
		}
	}
	if req.login != nil {
		if req.login.user != "" {
			c.loginUser = req.login.user
		} else {
			req.login.user = c.loginUser
		}
	}
	for _, corrupt := range req.corrupt {
		c.l.log.warn("corrupt record batch", "Kafka port: refused a record batch (INVALID_RECORD) that Kafka refuses and kfake would store",
			"remote", c.RemoteAddr().String(), "reason", corrupt)
	}
	now := time.Now().UnixNano()
	c.lastUsed.Store(now)
	c.lastSeen.Store(now)
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.l.budget.release(reserved)
		return nil, net.ErrClosed
	}
	if req.noResponse {
		// kfake writes nothing back for an acks=0 produce, so its
		// bytes are free once kfake has its own copy.
		c.unsent = reserved
	} else {
		c.answered = append(c.answered, queuedRequest{reserved: reserved, compat: req.compat, login: req.login})
	}
	c.mu.Unlock()
	return req.frame, nil
}

// awaitAnswers waits until kfake has answered every request handed to it.
func (c *guardConn) awaitAnswers() error {
	c.mu.Lock()
	for len(c.answered) > 0 && !c.closed {
		changed := c.changed
		c.mu.Unlock()
		<-changed
		c.mu.Lock()
	}
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return net.ErrClosed
	}
	return nil
}

// awaitRequest waits for the first byte of the next request, closing the
// connection once it has been idle — no request, no response — for
// IdleTimeout.
func (c *guardConn) awaitRequest(first []byte) error {
	idle := c.l.limits.IdleTimeout
	for {
		quietUntil := time.Unix(0, c.lastSeen.Load()).Add(idle)
		if err := c.Conn.SetReadDeadline(quietUntil); err != nil {
			return err
		}
		n, err := c.Conn.Read(first)
		if n == 1 {
			return nil
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if time.Unix(0, c.lastSeen.Load()).Add(idle).After(quietUntil) {
				continue // a response went out meanwhile
			}
			return errIdle
		}
		if err != nil {
			return err
		}
	}
}

// readFailure turns a read error inside a request into a refusal when it
// was the request deadline; EOF and resets are the client's own doing.
func (c *guardConn) readFailure(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &refusal{"request timeout", fmt.Sprintf("a request did not arrive whole within %v (RequestTimeout)", c.l.limits.RequestTimeout)}
	}
	return err
}

// checkFrameSize refuses a size prefix that is negative, shorter than a
// request header or above max.
func checkFrameSize(n, max int32) *refusal {
	switch {
	case n < 0:
		return &refusal{"frame size", fmt.Sprintf("negative request size %d", n)}
	case n < minRequestBytes:
		return &refusal{"frame size", fmt.Sprintf("request size %d is too short for a request header", n)}
	case n > max:
		return &refusal{"frame size", fmt.Sprintf("request size %d is above MaxRequestBytes (%d), as %q would be", n, max, sizeAsText(n))}
	}
	return nil
}

// sizeAsText shows a size prefix as the text it would be, which names the
// usual culprit: HTTP or TLS spoken to the Kafka port.
func sizeAsText(n int32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(n))
	return string(b[:])
}

const (
	// firstChunk is the most a request frame is given before its bytes
	// arrive; later chunks double up to maxChunk, so a frame's memory
	// never runs more than maxChunk ahead of the bytes received.
	firstChunk = 4 << 10
	maxChunk   = 1 << 20
	// chunkClasses is the number of chunk sizes, firstChunk to maxChunk.
	chunkClasses = 9
)

// chunkPool recycles the chunks of partial requests between connections:
// when one stalled request times out and the next takes its room in the
// budget, it reuses the chunks instead of leaving them to the garbage
// collector, so the heap stays near QueuedMaxRequestBytes rather than
// growing to twice it between collections.
type chunkPool [chunkClasses]sync.Pool

// get returns a chunk of class c (firstChunk << c bytes).
func (p *chunkPool) get(c int) []byte {
	if b, ok := p[c].Get().(*[]byte); ok {
		return *b
	}
	return make([]byte, firstChunk<<c)
}

func (p *chunkPool) put(c int, b []byte) {
	b = b[:cap(b)]
	p[c].Put(&b)
}

// readFrame reads the n-byte body of a request whose size prefix is size
// and returns the whole frame. Memory grows with the bytes received: a
// client that claims 100 MiB and sends ten bytes costs four kilobytes. It
// gives up at deadline even before the read deadline's timer fires, which
// on a fast connection can be megabytes later.
func readFrame(r io.Reader, size [4]byte, n int32, deadline time.Time, pool *chunkPool) ([]byte, error) {
	total := 4 + int(n)
	if total <= firstChunk {
		frame := make([]byte, total)
		copy(frame, size[:])
		_, err := io.ReadFull(r, frame[4:])
		return frame, err
	}
	var chunks [][]byte
	defer func() {
		for i, chunk := range chunks {
			pool.put(min(i, chunkClasses-1), chunk)
		}
	}()
	for have := 0; have < total; {
		if !time.Now().Before(deadline) {
			return nil, os.ErrDeadlineExceeded
		}
		chunk := pool.get(min(len(chunks), chunkClasses-1))
		chunk = chunk[:min(len(chunk), total-have)]
		chunks = append(chunks, chunk)
		from := 0
		if have == 0 {
			from = copy(chunk, size[:])
		}
		if _, err := io.ReadFull(r, chunk[from:]); err != nil {
			return nil, err
		}
		have += len(chunk)
	}
	frame := make([]byte, 0, total)
	for _, chunk := range chunks {
		frame = append(frame, chunk...)
	}
	return frame, nil
}

// Write implements net.Conn for kfake's writer, which writes one whole
// response per call.
func (c *guardConn) Write(p []byte) (int, error) {
	c.lastSeen.Store(time.Now().UnixNano())
	c.wmu.Lock()
	defer c.wmu.Unlock()
	out := c.frameResponses(p)
	if len(out) == 0 {
		return len(p), nil
	}
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.l.limits.RequestTimeout)); err != nil {
		return 0, err
	}
	if _, err := c.Conn.Write(out); err != nil {
		return 0, err
	}
	c.lastSeen.Store(time.Now().UnixNano())
	return len(p), nil
}

// frameResponses appends p to the response bytes not yet framed and
// returns the complete responses among them, each matched to the oldest
// unanswered request, which releases its budget; the answers compat.go
// rewrites go through it.
func (c *guardConn) frameResponses(p []byte) []byte {
	data := p
	if len(c.out) > 0 {
		c.out = append(c.out, p...)
		data = c.out
	}
	var rewritten []byte // data[:done] with the rewrites, once there is one
	changed := false
	done := 0
	for len(data)-done >= 8 {
		size := int(int32(binary.BigEndian.Uint32(data[done:])))
		if size < 4 {
			// Not a response kfake would write; stop framing.
			done = len(data)
			break
		}
		if len(data)-done < 4+size {
			break
		}
		frame := data[done : done+4+size]
		q := c.popAnswered()
		if q.compat != nil {
			if fixed, err := fixAnswer(q.compat, frame); err == nil {
				if !changed {
					rewritten = append(make([]byte, 0, done+len(fixed)), data[:done]...)
					changed = true
				}
				frame = fixed
			}
		}
		if changed {
			rewritten = append(rewritten, frame...)
		}
		done += 4 + size
	}
	out := data[:done]
	if changed {
		out = rewritten
	}
	if rest := data[done:]; len(rest) > 0 {
		// p is kfake's buffer, reused after Write returns: keep a copy.
		c.out = append([]byte(nil), rest...)
	} else {
		c.out = nil
	}
	return out
}

// popAnswered dequeues the oldest request awaiting an answer and releases
// its budget. kfake answers a connection's requests in order.
func (c *guardConn) popAnswered() queuedRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.answered) == 0 {
		return queuedRequest{}
	}
	q := c.answered[0]
	c.answered = c.answered[1:]
	close(c.changed)
	c.changed = make(chan struct{})
	c.l.budget.release(q.reserved)
	return q
}

// Close closes the connection, unlists it and releases what it held. A
// connection kfake closes with a SaslAuthenticate unanswered is a failed
// login (kfake answers a wrong password by closing): as Kafka does, the
// guard answers SASL_AUTHENTICATION_FAILED itself after
// PortLimits.FailedAuthenticationDelay, or later for an address that keeps
// failing, and then closes; the connection counts against the caps
// meanwhile.
func (c *guardConn) Close() error {
	err := net.ErrClosed
	c.closeOnce.Do(func() {
		c.mu.Lock()
		var login *loginAttempt
		if len(c.answered) > 0 {
			login = c.answered[0].login
		}
		c.mu.Unlock()
		if login != nil {
			c.refuseLogin(login)
		}
		err = c.Conn.Close()
		c.l.forget(c)
		c.mu.Lock()
		c.closed = true
		held := c.unsent
		for _, q := range c.answered {
			held += q.reserved
		}
		c.answered, c.unsent = nil, 0
		close(c.changed)
		c.mu.Unlock()
		c.l.budget.release(held)
	})
	return err
}

// refuseLogin counts and logs a failed login, holds its answer as long as
// the address's failures say (or until the listener closes) and writes
// Kafka's SASL_AUTHENTICATION_FAILED answer.
func (c *guardConn) refuseLogin(login *loginAttempt) {
	delay, failed := c.l.logins.fail(c.ip, time.Now())
	c.l.log.warn("failed authentication", "Kafka port: failed SASL authentication",
		"remote", c.RemoteAddr().String(), "user", login.user, "failuresFromAddress", failed, "answeredAfter", delay)
	wait := time.NewTimer(delay)
	select {
	case <-wait.C:
	case <-c.l.closed:
		wait.Stop()
		return
	}
	resp := kmsg.NewPtrSASLAuthenticateResponse()
	resp.Version = login.version
	resp.ErrorCode = kerr.SaslAuthenticationFailed.Code
	msg := "Authentication failed: Invalid username or password"
	resp.ErrorMessage = &msg
	_ = c.writeAnswer(login.corr, resp) // the client may be gone; it is closed next either way
}

// writeAnswer writes resp, an answer of the guard's own, as the answer
// to the request with correlation id corr.
func (c *guardConn) writeAnswer(corr int32, resp kmsg.Response) error {
	frame := binary.BigEndian.AppendUint32(make([]byte, 4, 256), uint32(corr))
	if resp.IsFlexible() && resp.Key() != int16(kmsg.ApiVersions) {
		frame = append(frame, 0) // no header tags
	}
	frame = resp.AppendTo(frame)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.l.limits.RequestTimeout)); err != nil {
		return err
	}
	_, err := c.Conn.Write(frame)
	c.lastSeen.Store(time.Now().UnixNano())
	return err
}
