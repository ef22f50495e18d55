package web

import (
	"context"
	"errors"
	"net/http"
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
