package web

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// liveLab is a lab over a fresh embedded broker with the live hub tuned
// by cfg, and a topic t of one partition.
func liveLab(t *testing.T, cfg live.Config) *lab.Lab {
	t.Helper()
	c, err := embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c, Live: cfg})
	t.Cleanup(l.Close)
	if _, err := l.CreateTopic(t.Context(), cluster.TopicSpec{Name: "t", Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	return l
}

// watchCounter is a Lab that keeps the subscriptions Watch hands out.
type watchCounter struct {
	*lab.Lab
	mu   sync.Mutex
	subs []*live.Subscription
}

func (w *watchCounter) Watch(ctx context.Context, topic string, partition int32, viewer live.Viewer) (*live.Subscription, error) {
	sub, err := w.Lab.Watch(ctx, topic, partition, viewer)
	if err == nil {
		w.mu.Lock()
		w.subs = append(w.subs, sub)
		w.mu.Unlock()
	}
	return sub, err
}

func (w *watchCounter) watched() []*live.Subscription {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*live.Subscription(nil), w.subs...)
}

// gatedListener's connections hold every Write while the gate is shut:
// a viewer whose network stalls, as the server sees it.
type gatedListener struct {
	net.Listener
	mu   sync.Mutex
	open chan struct{} // closed while the gate is open
}

func (g *gatedListener) Accept() (net.Conn, error) {
	c, err := g.Listener.Accept()
	return &gatedConn{Conn: c, g: g}, err
}

func (g *gatedListener) shut() {
	g.mu.Lock()
	g.open = make(chan struct{})
	g.mu.Unlock()
}

func (g *gatedListener) reopen() {
	g.mu.Lock()
	close(g.open)
	g.mu.Unlock()
}

type gatedConn struct {
	net.Conn
	g *gatedListener
}

func (c *gatedConn) Write(p []byte) (int, error) {
	c.g.mu.Lock()
	open := c.g.open
	c.g.mu.Unlock()
	<-open
	return c.Conn.Write(p)
}

// readMessage reads one live message.
func readMessage(t *testing.T, ctx context.Context, conn *websocket.Conn) live.Message {
	t.Helper()
	_, raw, err := conn.Read(ctx)
	if err != nil {
		t.Fatalf("read the stream: %v", err)
	}
	var m live.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("a live message: %v: %s", err, raw)
	}
	return m
}

// TestViewerLagsThenResumes: a viewer whose connection stalls while
// records arrive falls behind (its queue of two messages overflows), and
// once its connection moves again it gets, on the same websocket, a fresh
// snapshot with every record written — not a closed connection, and not
// the stale queue.
func TestViewerLagsThenResumes(t *testing.T) {
	t.Parallel()
	w := &watchCounter{Lab: liveLab(t, live.Config{Buffer: 2, PollInterval: 10 * time.Millisecond})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gate := &gatedListener{Listener: ln, open: make(chan struct{})}
	close(gate.open)
	srv := httptest.NewUnstartedServer(New(Deps{Lab: w}, nil).Handler())
	srv.Listener = gate
	srv.Start()
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws/topics/t/partitions/0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(16 << 20)
	if m := readMessage(t, ctx, conn); m.Type != live.TypeSnapshot {
		t.Fatalf("first message %q, want a snapshot", m.Type)
	}

	gate.shut()
	written := 0
	lagCtx, lagCancel := context.WithTimeout(ctx, 20*time.Second)
	defer lagCancel()
	err = wait.Until(lagCtx, 5*time.Millisecond, func(ctx context.Context) (bool, error) {
		if _, err := w.Produce(ctx, producer.Request{Topic: "t", Values: producer.Values("r")}); err != nil {
			return false, err
		}
		written++
		subs := w.watched()
		return subs[0].Lagged(), nil
	})
	if err != nil {
		t.Fatalf("the stalled viewer never fell behind after %d records: %v", written, err)
	}
	gate.reopen()

	// What was queued before the lag may come first, then the fresh
	// snapshot: newer than anything queued (the messages that did not fit
	// held later offsets), and the stream goes on from it to the last
	// record written.
	stale := int64(0)
	for {
		m := readMessage(t, ctx, conn)
		if m.Type == live.TypeSnapshot {
			if m.Pointers == nil || m.Pointers.HighWatermark <= stale || len(m.Entries) == 0 {
				t.Fatalf("the snapshot after the lag: pointers %+v, %d entries; want a high watermark above the queued %d", m.Pointers, len(m.Entries), stale)
			}
			stale = m.Pointers.HighWatermark
			break
		}
		if m.Pointers != nil {
			stale = max(stale, m.Pointers.HighWatermark)
		}
	}
	for hw := stale; hw != int64(written); {
		m := readMessage(t, ctx, conn)
		if m.Type == live.TypeSnapshot {
			t.Fatalf("a third snapshot: the viewer lagged again")
		}
		if m.Pointers != nil {
			hw = m.Pointers.HighWatermark
		}
	}
	if n := len(w.watched()); n != 2 {
		t.Fatalf("%d subscriptions for one websocket, want 2 (the first, and the one after the lag)", n)
	}
}

// TestViewerSlotsReturn: a client may hold ViewersPerClient websockets at
// once; opening and closing three times as many one after another is
// admitted every time, because each closed one gives its slot back.
func TestViewerSlotsReturn(t *testing.T) {
	t.Parallel()
	const perClient = 2
	srv := httptest.NewServer(New(Deps{Lab: liveLab(t, live.Config{})}, nil, WithLimits(Limits{ViewersPerClient: perClient, Viewers: perClient})).Handler())
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws/topics/t/partitions/0"

	// The cap holds: one more than perClient at once is refused.
	var open []*websocket.Conn
	for range perClient {
		conn, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, conn)
	}
	if conn, resp, err := websocket.Dial(ctx, url, nil); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		if conn != nil {
			conn.CloseNow()
		}
		t.Fatalf("viewer %d of a client allowed %d: %v, want 503", perClient+1, perClient, err)
	}
	for _, conn := range open {
		conn.Close(websocket.StatusNormalClosure, "")
	}

	for i := range 3 * perClient {
		// A closed viewer's slot comes back once its handler returns,
		// a moment after the close handshake.
		var conn *websocket.Conn
		admitCtx, admitCancel := context.WithTimeout(ctx, 10*time.Second)
		err := wait.Until(admitCtx, 10*time.Millisecond, func(ctx context.Context) (bool, error) {
			c, resp, err := websocket.Dial(ctx, url, nil)
			if err == nil {
				conn = c
				return true, nil
			}
			if resp != nil && resp.StatusCode == http.StatusServiceUnavailable {
				return false, nil
			}
			return false, err
		})
		if err != nil {
			t.Fatalf("websocket %d, opened after %d were closed: not admitted within 10 s: %v", i+1, i+perClient, err)
		}
		admitCancel()
		if m := readMessage(t, ctx, conn); m.Type != live.TypeSnapshot {
			t.Fatalf("websocket %d: first message %q", i+1, m.Type)
		}
		conn.Close(websocket.StatusNormalClosure, "")
	}
}
