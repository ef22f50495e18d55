package web

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/web/httpx"
)

// wsWriteTimeout bounds one websocket write: a viewer that cannot take a
// message in this time is gone.
const wsWriteTimeout = 5 * time.Second

// maxResnapshots is how often a lagging viewer is given a fresh snapshot
// within one connection before it is closed with 1008 (policy violation).
const maxResnapshots = 3

// watchPartition streams a partition: a snapshot, then entries, pointer
// moves, group offsets, broker status and narration (see package live).
// coder/websocket refuses a handshake whose Origin is not this host.
func (s *Server) watchPartition(w http.ResponseWriter, r *http.Request) {
	topic, partition, err := httpx.PartitionParams(r)
	if err != nil {
		httpx.WriteError(s.log, w, r, err)
		return
	}
	viewer := s.viewerOf(r)
	release, ok := s.viewers.admit(w, viewer)
	if !ok {
		return
	}
	defer release()
	// The first subscription before the handshake, so that a refusal
	// (too many partitions watched) is an ordinary error answer.
	sub, err := s.deps.Lab.Watch(r.Context(), topic, partition, viewer)
	if err != nil {
		httpx.WriteError(s.log, w, r, err)
		return
	}
	clearDeadlines(w)
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		sub.Close()
		s.log.Info("websocket refused", "err", err)
		return
	}
	defer conn.CloseNow()
	defer s.api.Watching(r, topic, partition)()
	conn.SetReadLimit(4 << 10)
	ctx := conn.CloseRead(context.Background())
	stop, left := s.going.join()
	defer left()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()

	for range maxResnapshots + 1 {
		if sub == nil {
			if sub, err = s.deps.Lab.Watch(ctx, topic, partition, viewer); err != nil {
				conn.Close(websocket.StatusTryAgainLater, "the server cannot watch this partition now")
				return
			}
		}
		lagged, err := pump(ctx, conn, sub)
		sub.Close()
		sub = nil
		if isClosed(stop) {
			// 1001: the page says the server went away and tries again,
			// instead of seeing the connection drop.
			conn.Close(websocket.StatusGoingAway, "the server is shutting down")
			return
		}
		if err != nil || !lagged {
			return
		}
		s.log.Info("websocket viewer lagged; resending a snapshot", "topic", topic, "partition", partition)
	}
	conn.Close(websocket.StatusPolicyViolation, "the viewer kept falling behind")
}

// pump writes the subscription's messages until it ends or the viewer goes.
func pump(ctx context.Context, conn *websocket.Conn, sub *live.Subscription) (lagged bool, err error) {
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case msg, ok := <-sub.C:
			if !ok {
				if sub.Lagged() {
					return true, nil
				}
				return false, errors.New("subscription ended")
			}
			wctx, cancel := context.WithTimeout(ctx, wsWriteTimeout)
			err := conn.Write(wctx, websocket.MessageText, msg)
			cancel()
			if err != nil {
				return false, err
			}
		}
	}
}

// goingAway tells the live views that the server stops, and counts the
// views still open.
type goingAway struct {
	stop     chan struct{}
	stopOnce sync.Once
	mu       sync.Mutex
	open     int
	// gone is signalled (without blocking) whenever a view leaves.
	gone chan struct{}
}

func newGoingAway() *goingAway {
	return &goingAway{stop: make(chan struct{}), gone: make(chan struct{}, 1)}
}

// join counts one live view: stop closes when the server stops; the view
// calls left once its connection is closed.
func (g *goingAway) join() (stop <-chan struct{}, left func()) {
	g.mu.Lock()
	g.open++
	g.mu.Unlock()
	return g.stop, func() {
		g.mu.Lock()
		g.open--
		g.mu.Unlock()
		select {
		case g.gone <- struct{}{}:
		default:
		}
	}
}

// views is how many live views are open.
func (g *goingAway) views() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

// isClosed tells whether c is closed.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// CloseViewers closes every live view with 1001 (going away) and waits
// until each has finished its close handshake, or ctx ends: a viewer that
// never answers the close (gone, or stalled) costs at most ctx, never the
// websocket's own handshake timeouts. http.Server.Shutdown does not wait
// for websockets (their connections are hijacked): call this beside it
// when the server stops. Views that open afterwards close at once. It
// returns how many views were still open when it gave up (0: all closed).
func (s *Server) CloseViewers(ctx context.Context) int {
	g := s.going
	g.stopOnce.Do(func() { close(g.stop) })
	for {
		n := g.views()
		if n == 0 {
			return 0
		}
		select {
		case <-g.gone:
		case <-ctx.Done():
			return g.views()
		}
	}
}
