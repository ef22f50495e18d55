package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twmb/franz-go/pkg/kgo"
)

// wsMessage is the part of a stream message the tests read.
type wsMessage struct {
	Type     string `json:"type"`
	Pointers *struct {
		LastStableOffset int64 `json:"lastStableOffset"`
		HighWatermark    int64 `json:"highWatermark"`
	} `json:"pointers"`
	Entries []struct {
		Offset int64  `json:"offset"`
		Kind   string `json:"kind"`
		Marker string `json:"marker"`
		Txn    string `json:"txn"`
	} `json:"entries"`
	Event *struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	} `json:"event"`
	Reachable *bool `json:"reachable"`
}

// viewer is a websocket client that records what it was told.
type viewer struct {
	mu     sync.Mutex
	cells  map[int64]string // offset -> "kind/txn/marker"
	hw     int64
	events []string
	closed error
}

func (a *app) dialStream(ctx context.Context, topic string, origin string) (*websocket.Conn, *http.Response, error) {
	url := "ws" + strings.TrimPrefix(a.url, "http") + "/ws/topics/" + topic + "/partitions/0"
	opts := &websocket.DialOptions{}
	if origin != "" {
		opts.HTTPHeader = http.Header{"Origin": {origin}}
	}
	return websocket.Dial(ctx, url, opts)
}

// watch connects a viewer that reads every message until ctx ends.
func (a *app) watch(ctx context.Context, topic string) *viewer {
	a.t.Helper()
	conn, _, err := a.dialStream(ctx, topic, "")
	if err != nil {
		a.t.Fatalf("dial stream: %v", err)
	}
	conn.SetReadLimit(64 << 20)
	v := &viewer{cells: map[int64]string{}}
	go func() {
		defer conn.CloseNow()
		for {
			_, raw, err := conn.Read(ctx)
			if err != nil {
				v.mu.Lock()
				v.closed = err
				v.mu.Unlock()
				return
			}
			var m wsMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				continue
			}
			v.mu.Lock()
			if m.Type == "snapshot" {
				v.cells = map[int64]string{}
			}
			for _, e := range m.Entries {
				v.cells[e.Offset] = e.Kind + "/" + e.Txn + "/" + e.Marker
			}
			if m.Pointers != nil {
				v.hw = m.Pointers.HighWatermark
			}
			if m.Event != nil {
				v.events = append(v.events, m.Event.Kind+": "+m.Event.Text)
			}
			v.mu.Unlock()
		}
	}()
	return v
}

// waitFor polls cond (under the viewer's lock) until it holds or the
// deadline passes.
func (v *viewer) waitFor(t *testing.T, what string, d time.Duration, cond func(*viewer) bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		v.mu.Lock()
		ok := cond(v)
		closed := v.closed
		v.mu.Unlock()
		if ok {
			return
		}
		if closed != nil || time.Now().After(deadline) {
			v.mu.Lock()
			defer v.mu.Unlock()
			t.Fatalf("viewer never saw %s (closed: %v); hw %d, %d cells, events %q", what, closed, v.hw, len(v.cells), v.events)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStreamResolvesTransactions: a viewer sees an external client's open
// transactional write, then sees the same cell turn aborted with the ABORT
// marker after it, and the narration says so.
func TestStreamResolvesTransactions(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			a := startApp(t, kind)
			topic := a.name("stream")
			a.createTopic(topic)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			v := a.watch(ctx, topic)

			client, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.TransactionalID(a.name("stream-txn")), kgo.DefaultProduceTopic(topic))
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			if err := client.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			if err := client.ProduceSync(ctx, kgo.StringRecord("O-2 total=42000")).FirstErr(); err != nil {
				t.Fatal(err)
			}
			v.waitFor(t, "offset 0 open", 10*time.Second, func(v *viewer) bool { return v.cells[0] == "data/open/" })
			if err := client.EndTransaction(ctx, kgo.TryAbort); err != nil {
				t.Fatal(err)
			}
			v.waitFor(t, "offset 0 aborted and an ABORT marker at 1", 10*time.Second, func(v *viewer) bool {
				return v.cells[0] == "data/aborted/" && v.cells[1] == "control/aborted/ABORT"
			})
			v.waitFor(t, "the abort narrated", 5*time.Second, func(v *viewer) bool {
				for _, e := range v.events {
					if strings.HasPrefix(e, "abort: Offset 1: ABORT marker") && strings.Contains(e, "Offset 0 aborted") {
						return true
					}
				}
				return false
			})
		})
	}
}

// TestStreamSlowViewers: 50 viewers watch while records are written, 5 of
// them never read. The 45 others still receive every update — the final
// high watermark and the cells of the log's tail — and the stalled ones
// are dropped without holding anyone up.
func TestStreamSlowViewers(t *testing.T) {
	t.Parallel()
	a := startApp(t, embedded)
	topic := a.name("viewers")
	a.createTopic(topic)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var healthy []*viewer
	for i := range 50 {
		if i%10 == 9 {
			conn, _, err := a.dialStream(ctx, topic, "") // connected, never reads
			if err != nil {
				t.Fatal(err)
			}
			defer conn.CloseNow()
			continue
		}
		healthy = append(healthy, a.watch(ctx, topic))
	}

	const records = 3000
	client, err := kgo.NewClient(kgo.SeedBrokers(a.kafka.Brokers()...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	value := strings.Repeat("x", 1000)
	for i := 0; i < records; i += 100 {
		batch := make([]*kgo.Record, 100)
		for j := range batch {
			batch[j] = kgo.StringRecord(fmt.Sprintf("%d %s", i+j, value))
		}
		if err := client.ProduceSync(ctx, batch...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range healthy {
		v.waitFor(t, fmt.Sprintf("all %d offsets (healthy viewer %d)", records, i), time.Minute, func(v *viewer) bool {
			if v.hw != records {
				return false
			}
			for o := int64(records - 200); o < records; o++ {
				if v.cells[o] != "data/none/" {
					return false
				}
			}
			return true
		})
	}
}

// TestStreamRefusesForeignOrigin: a page of another origin cannot open the
// stream.
func TestStreamRefusesForeignOrigin(t *testing.T) {
	t.Parallel()
	a := startApp(t, embedded)
	topic := a.name("origin")
	a.createTopic(topic)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := a.dialStream(ctx, topic, "http://evil.example")
	if err == nil {
		conn.CloseNow()
		t.Fatal("a foreign-origin websocket was accepted")
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign-origin websocket: %v (response %v), want 403", err, resp)
	}
	conn, _, err = a.dialStream(ctx, topic, a.url)
	if err != nil {
		t.Fatalf("same-origin websocket refused: %v", err)
	}
	conn.CloseNow()
}
