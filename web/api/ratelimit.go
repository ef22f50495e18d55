package api

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// Fault actions (a produce with a fault, a processor run, a transaction
// crash, a broker stop or start) are limited per role to faultRate a second
// with bursts of faultBurst, so a stuck key or a looping script cannot
// flood the broker.
const (
	faultRate  = 3.0
	faultBurst = 6
)

// faultLimiter is a token bucket per role.
type faultLimiter struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	buckets map[httpx.Role]*bucket
	now     func() time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newFaultLimiter(rate float64, burst int) *faultLimiter {
	return &faultLimiter{rate: rate, burst: float64(burst), buckets: map[httpx.Role]*bucket{}, now: time.Now}
}

// allow takes a token from who's bucket, reporting false when it is empty.
func (l *faultLimiter) allow(who httpx.Role) bool {
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
	if s.faults.allow(httpx.RoleOf(r)) {
		return true
	}
	w.Header().Set("Retry-After", "1")
	httpx.Refuse(w, problem.TooFast, "error.faultRate", "rate", strconv.Itoa(int(faultRate)), "burst", strconv.Itoa(faultBurst))
	return false
}
