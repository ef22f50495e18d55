package live

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// shareLog is a growing log whose share lanes a test sets.
type shareLog struct {
	*growingLog
	mu    sync.Mutex
	lanes []cluster.SharePartition
	asked []int64 // the from of every ShareLanes call
}

func (s *shareLog) ShareLanes(_ context.Context, _ string, _ int32, from int64, _ int) ([]cluster.SharePartition, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, from)
	return s.lanes, nil
}

func (s *shareLog) set(lanes ...cluster.SharePartition) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lanes = lanes
}

// TestShareLanesStreamed: a share group's lane reaches the viewer once,
// again only when it changes, and a new viewer's snapshot carries it.
func TestShareLanesStreamed(t *testing.T) {
	t.Parallel()
	src := &shareLog{growingLog: &growingLog{hws: map[feedKey]int64{}}}
	lane := func(state string) cluster.SharePartition {
		return cluster.SharePartition{Group: "workers", StartOffset: 0, EndOffset: 1, Records: []cluster.ShareRecord{{Offset: 0, State: state, DeliveryCount: 1}}}
	}
	src.set(lane("acquired"))
	h := NewHub(src, nil, Config{PollInterval: 5 * time.Millisecond, GroupEvery: 1})
	defer h.Close()
	sub, err := h.Subscribe("t", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	next := func() cluster.SharePartition {
		t.Helper()
		for {
			m, _ := readMessage(t, sub)
			if m.Type == TypeShare {
				if len(m.Shares) != 1 {
					t.Fatalf("share message with %d lanes", len(m.Shares))
				}
				return m.Shares[0]
			}
		}
	}
	if got := next(); got.Records[0].State != "acquired" {
		t.Fatalf("first lane: %+v", got)
	}
	src.set(lane("acknowledged"))
	if got := next(); got.Records[0].State != "acknowledged" {
		t.Fatalf("changed lane: %+v", got)
	}
	// The log keeps growing; the unchanged lane is not sent again.
	for range 30 {
		if m, _ := readMessage(t, sub); m.Type == TypeShare {
			t.Fatalf("an unchanged lane sent again: %+v", m.Shares)
		}
	}
	second, err := h.Subscribe("t", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	m, _ := readMessage(t, second)
	if m.Type != TypeSnapshot || len(m.Shares) != 1 || m.Shares[0].Records[0].State != "acknowledged" {
		t.Fatalf("snapshot: %s with lanes %+v", m.Type, m.Shares)
	}
}

// TestKeepReadsTheShareLanes: Keep (what a lesson's share step waits on)
// returns only after a poll that read the share lanes, however often the
// feed's own timer fires: a step that acknowledged a record then shows it
// on the lane, not a second later.
func TestKeepReadsTheShareLanes(t *testing.T) {
	t.Parallel()
	src := &shareLog{growingLog: &growingLog{hws: map[feedKey]int64{}}}
	// A timer always due, and groups (with the share lanes) never read
	// on the timer's own polls: only a kicked poll reads them.
	h := NewHub(src, nil, Config{PollInterval: time.Microsecond, GroupEvery: 1_000_000})
	defer h.Close()
	for i := range 200 {
		src.mu.Lock()
		before := len(src.asked)
		src.mu.Unlock()
		if err := h.Keep(context.Background(), "t", 0); err != nil {
			t.Fatal(err)
		}
		src.mu.Lock()
		after := len(src.asked)
		src.mu.Unlock()
		if after == before {
			t.Fatalf("Keep %d returned after a poll that did not read the share lanes", i+1)
		}
	}
}
