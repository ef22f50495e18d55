package api

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

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

// faultLimiter keeps one token bucket (golang.org/x/time/rate) per role.
type faultLimiter struct {
	mu       sync.Mutex
	limit    rate.Limit
	burst    int
	limiters map[httpx.Role]*rate.Limiter
	now      func() time.Time
}

func newFaultLimiter(perSecond float64, burst int) *faultLimiter {
	return &faultLimiter{limit: rate.Limit(perSecond), burst: burst, limiters: map[httpx.Role]*rate.Limiter{}, now: time.Now}
}

// allow takes a token from who's bucket, reporting false when it is empty.
// A role's bucket starts full.
func (l *faultLimiter) allow(who httpx.Role) bool {
	l.mu.Lock()
	lim, ok := l.limiters[who]
	if !ok {
		lim = rate.NewLimiter(l.limit, l.burst)
		l.limiters[who] = lim
	}
	l.mu.Unlock()
	return lim.AllowN(l.now(), 1)
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
