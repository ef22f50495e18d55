package live

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/inspect"
)

// growingLog is a Source whose partitions gain a record at every read of
// their pointers, as a busy topic does.
type growingLog struct {
	mu  sync.Mutex
	hws map[feedKey]int64
}

func (g *growingLog) Pointers(_ context.Context, topic string, partition int32) (inspect.Pointers, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := feedKey{topic, partition}
	g.hws[k]++
	return inspect.Pointers{LastStableOffset: g.hws[k], HighWatermark: g.hws[k]}, nil
}

func (g *growingLog) ReadLog(_ context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error) {
	g.mu.Lock()
	hw := g.hws[feedKey{topic, partition}]
	g.mu.Unlock()
	l := &inspect.Log{Topic: topic, Partition: partition, Pointers: inspect.Pointers{LastStableOffset: hw, HighWatermark: hw}}
	for o := from; o < hw && len(l.Entries) < limit; o++ {
		l.Entries = append(l.Entries, data(o, -1, inspect.TxnNone))
	}
	return l, nil
}

// TestHubConcurrency: many viewers subscribe to and leave a few partitions
// at random while feeds publish and narration is broadcast, with small
// buffers so that laggards are dropped. Every subscription starts with a
// snapshot, no channel is used after it is closed (run with -race), and
// once everyone has left no feed is left polling.
func TestHubConcurrency(t *testing.T) {
	t.Parallel()
	hub := NewHub(&growingLog{hws: map[feedKey]int64{}}, nil, Config{PollInterval: time.Millisecond, Buffer: 4, MaxFeeds: 8})
	defer hub.Close()
	var (
		wg        sync.WaitGroup
		snapshots atomic.Int64
		refused   atomic.Int64
	)
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() { // narrators
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				topic := ""
				if n%2 == 0 {
					topic = fmt.Sprintf("t%d", n%5)
				}
				hub.Narrate(NewEvent(EventInfo, topic, 0, catalog.M("narration.acks0")))
				if n%50 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
	for v := range 32 {
		wg.Go(func() { // viewers
			r := rand.New(rand.NewPCG(uint64(v), 7))
			for range 15 {
				sub, err := hub.Subscribe(fmt.Sprintf("t%d", r.IntN(10)), 0)
				if err != nil {
					refused.Add(1) // more partitions than MaxFeeds at once
					continue
				}
				first := <-sub.C
				var m Message
				if err := json.Unmarshal(first, &m); err != nil || m.Type != TypeSnapshot {
					t.Errorf("first message %s (%v), want a snapshot", first, err)
				}
				snapshots.Add(1)
				for range r.IntN(5) {
					if _, ok := <-sub.C; !ok {
						break // dropped as a laggard
					}
				}
				sub.Close()
				sub.Close() // twice is harmless
			}
		})
	}
	time.Sleep(10 * time.Millisecond)
	wg.Go(func() { // wait for the viewers, then stop the narrators
		for hub.Watchers() > 0 || snapshots.Load()+refused.Load() < 32*15 {
			time.Sleep(time.Millisecond)
		}
		close(stop)
	})
	wg.Wait()
	if got := hub.Watchers(); got != 0 {
		t.Errorf("%d viewers still counted after all left", got)
	}
	hub.mu.Lock()
	feeds := len(hub.feeds)
	hub.mu.Unlock()
	if feeds != 0 {
		t.Errorf("%d feeds still polling after every viewer left", feeds)
	}
	if snapshots.Load() == 0 {
		t.Fatal("no viewer got a snapshot")
	}
	t.Logf("%d subscriptions, %d refused at the feed limit", snapshots.Load(), refused.Load())
}

// TestSubscribeAsLastLeaves: a viewer who subscribes while the last one of
// a partition leaves keeps a running feed (it used to be closed at once).
func TestSubscribeAsLastLeaves(t *testing.T) {
	t.Parallel()
	hub := NewHub(&growingLog{hws: map[feedKey]int64{}}, nil, Config{PollInterval: time.Millisecond})
	defer hub.Close()
	for range 50 {
		a, err := hub.Subscribe("t", 0)
		if err != nil {
			t.Fatal(err)
		}
		<-a.C
		var b *Subscription
		done := make(chan struct{})
		go func() {
			defer close(done)
			b, err = hub.Subscribe("t", 0)
		}()
		a.Close()
		<-done
		if err != nil {
			t.Fatal(err)
		}
		<-b.C // the snapshot
		select {
		case _, ok := <-b.C:
			if !ok {
				t.Fatal("the new viewer's subscription was closed as the last one left")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the new viewer's feed stopped polling")
		}
		b.Close()
	}
}
