package live

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// laggingLog is a Source of one partition whose pointers count a COMMIT
// marker at offset 1 before its reads return it (as a broker may answer a
// high watermark that counts a marker its fetch does not return yet):
// until released, ReadLog stops at offset 0.
type laggingLog struct {
	mu       sync.Mutex
	written  bool // the marker is written (the pointers count it)
	readable bool // reads return it
}

func (l *laggingLog) Pointers(context.Context, string, int32) (inspect.Pointers, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	hw := int64(1)
	if l.written {
		hw = 2
	}
	return inspect.Pointers{LastStableOffset: hw, HighWatermark: hw}, nil
}

func (l *laggingLog) ReadLog(_ context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	hw := int64(1)
	if l.written {
		hw = 2
	}
	out := &inspect.Log{Topic: topic, Partition: partition, Pointers: inspect.Pointers{LastStableOffset: hw, HighWatermark: hw}}
	for o := from; o < hw && len(out.Entries) < limit; o++ {
		switch {
		case o == 0:
			out.Entries = append(out.Entries, data(0, 7, inspect.TxnCommitted))
		case o == 1 && l.readable:
			out.Entries = append(out.Entries, marker(1, 7, inspect.MarkerCommit))
		}
	}
	return out, nil
}

// TestShortReadStillNarrates: a COMMIT marker the pointers counted one
// poll before a read returned it is still told on the timeline when a
// later poll reads it. Before, the feed took the previous high watermark
// as what it had read, and dropped the marker as old news: lesson 2's
// story on the stage lacked a COMMIT now and then.
func TestShortReadStillNarrates(t *testing.T) {
	t.Parallel()
	src := &laggingLog{}
	hub := NewHub(src, nil, Config{PollInterval: 5 * time.Millisecond})
	defer hub.Close()
	sub, err := hub.Subscribe("order-totals-tx", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	<-sub.C // the snapshot: offset 0
	src.mu.Lock()
	src.written = true
	src.mu.Unlock()
	time.Sleep(50 * time.Millisecond) // polls that see HW 2 and read only offset 0
	src.mu.Lock()
	src.readable = true
	src.mu.Unlock()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case raw, ok := <-sub.C:
			if !ok {
				t.Fatal("the subscription closed")
			}
			var m Message
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			for _, e := range m.Events {
				if e.Kind == EventCommit && e.Offset != nil && *e.Offset == 1 {
					return
				}
			}
			if m.Type == TypeEvent && m.Event != nil && m.Event.Kind == EventCommit && m.Event.Offset != nil && *m.Event.Offset == 1 {
				return
			}
		case <-deadline:
			t.Fatal("the COMMIT marker at offset 1 was never told")
		}
	}
}
