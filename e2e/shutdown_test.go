package e2e

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestShutdownClosesLiveViews: SIGTERM with live views open closes each
// with 1001 (going away) — the page then says the server went away — and
// the server stops without waiting for a viewer that never answers its
// close (the websocket's own handshake timeouts): it gives that one up,
// says so in its log, and exits cleanly.
func TestShutdownClosesLiveViews(t *testing.T) {
	t.Parallel()
	srv := startServerProcess(t, "--data-dir", t.TempDir())
	a := srv.app(randomSuffix(t))
	topic := a.name("going-away")
	a.createTopic(topic)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// A page's view: reads everything, answers the close.
	reading, _, err := a.dialStream(ctx, topic, "")
	if err != nil {
		t.Fatal(err)
	}
	defer reading.CloseNow()
	if _, _, err := reading.Read(ctx); err != nil {
		t.Fatalf("the snapshot: %v", err)
	}
	closed := make(chan error, 1)
	go func() {
		for {
			if _, _, err := reading.Read(ctx); err != nil {
				closed <- err
				return
			}
		}
	}()
	// A stalled view: reads its snapshot (so the server holds it as a view
	// before the signal), then never reads again, so never answers a close.
	stalled, _, err := a.dialStream(ctx, topic, "")
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.CloseNow()
	if _, _, err := stalled.Read(ctx); err != nil {
		t.Fatalf("the stalled view's snapshot: %v", err)
	}

	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-closed:
		if got := websocket.CloseStatus(err); got != websocket.StatusGoingAway {
			t.Errorf("the reading view closed with %v (%v), want 1001 going away", got, err)
		}
	case <-ctx.Done():
		t.Fatal("the reading view was never closed")
	}
	select {
	case <-srv.done:
	case <-ctx.Done():
		t.Fatalf("the server did not stop; log:\n%s", srv.logText())
	}
	if code := srv.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("the server exited %d; log:\n%s", code, srv.logText())
	}
	// It gave the stalled view up instead of waiting out its handshake...
	log := srv.logText()
	if !strings.Contains(log, `msg="live views closed without their answer" views=1`) || !strings.Contains(log, `msg=stopped`) {
		t.Errorf("the log does not say the stalled view was given up and the server stopped:\n%s", log)
	}
	// ... after sending it 1001 too: it is there to read, after the
	// messages it never read.
	for err == nil {
		_, _, err = stalled.Read(ctx)
	}
	if got := websocket.CloseStatus(err); got != websocket.StatusGoingAway {
		t.Errorf("the stalled view reads %v (%v), want 1001 going away", got, err)
	}
}
