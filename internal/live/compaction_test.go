package live

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// compactingLog is a Source of one partition of four records, offsets
// 0–3 (LSO = HW = 4), whose log cleaner may remove offset 1: a gap then,
// its pointers unchanged.
type compactingLog struct {
	mu        sync.Mutex
	compacted bool
}

func (c *compactingLog) compact() {
	c.mu.Lock()
	c.compacted = true
	c.mu.Unlock()
}

func (c *compactingLog) Pointers(context.Context, string, int32) (inspect.Pointers, error) {
	return inspect.Pointers{LastStableOffset: 4, HighWatermark: 4}, nil
}

func (c *compactingLog) ReadLog(_ context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l := &inspect.Log{Topic: topic, Partition: partition, Pointers: inspect.Pointers{LastStableOffset: 4, HighWatermark: 4}}
	for o := from; o < 4 && len(l.Entries) < limit; o++ {
		e := data(o, -1, inspect.TxnNone)
		if o == 1 && c.compacted {
			e = inspect.Entry{Offset: 1, Kind: inspect.KindGap, Reason: "compacted", Txn: inspect.TxnNone}
		}
		l.Entries = append(l.Entries, e)
	}
	return l, nil
}

// awaitGap reads sub's messages until one brings offset 1 as a gap.
func awaitGap(t *testing.T, sub *Subscription, within time.Duration) bool {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case raw := <-sub.C:
			var m Message
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			for _, e := range m.Entries {
				if e.Offset == 1 && e.Kind == inspect.KindGap {
					return true
				}
			}
		case <-deadline:
			return false
		}
	}
}

// TestCompactionReachesViewers: the log cleaner turns offset 1, below
// the LSO, into a gap without moving a pointer. Told (Hub.Rewritten, what
// a lesson's cleaner step does), the feed streams the gap at its next
// poll; untold, its periodic read of the whole tail (TailEvery) finds it.
// Before, a feed read only from the previous LSO and kept showing the
// removed record to every viewer, snapshots included.
func TestCompactionReachesViewers(t *testing.T) {
	t.Parallel()
	for _, told := range []bool{true, false} {
		src := &compactingLog{}
		hub := NewHub(src, nil, Config{PollInterval: 5 * time.Millisecond, TailEvery: 40})
		sub, err := hub.Subscribe("prices", 0)
		if err != nil {
			t.Fatal(err)
		}
		<-sub.C // the snapshot: four records
		time.Sleep(20 * time.Millisecond)
		src.compact()
		within := 5 * time.Second
		if told {
			if err := hub.Rewritten(context.Background(), "prices", 0); err != nil {
				t.Fatal(err)
			}
			within = 100 * time.Millisecond // already polled: Rewritten waits for it
		}
		if !awaitGap(t, sub, within) {
			t.Errorf("told %v: the compacted offset never reached the viewer", told)
		}
		later, err := hub.Subscribe("prices", 0)
		if err != nil {
			t.Fatal(err)
		}
		var snap Message
		if err := json.Unmarshal(<-later.C, &snap); err != nil {
			t.Fatal(err)
		}
		for _, e := range snap.Entries {
			if e.Offset == 1 && e.Kind != inspect.KindGap {
				t.Errorf("told %v: a later viewer's snapshot still holds offset 1 as %s", told, e.Kind)
			}
		}
		sub.Close()
		later.Close()
		hub.Close()
	}
}
