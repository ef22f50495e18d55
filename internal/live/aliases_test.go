package live

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// writersLog is a partition whose producers wrote runs of records: pid
// at [from, to). As a WriterSource it lists them from the log start;
// grow adds a run.
type writersLog struct {
	mu      sync.Mutex
	runs    []writerRun
	writers bool // also a WriterSource
}

type writerRun struct{ pid, from, to int64 }

func (w *writersLog) hw() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runs[len(w.runs)-1].to
}

// grow appends runs of n records each by pid, at once (one burst): pairs
// of pid, n.
func (w *writersLog) grow(pidN ...int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := 0; i+1 < len(pidN); i += 2 {
		end := w.runs[len(w.runs)-1].to
		w.runs = append(w.runs, writerRun{pidN[i], end, end + pidN[i+1]})
	}
}

func (w *writersLog) Pointers(context.Context, string, int32) (inspect.Pointers, error) {
	hw := w.hw()
	return inspect.Pointers{LastStableOffset: hw, HighWatermark: hw}, nil
}

func (w *writersLog) ReadLog(_ context.Context, topic string, partition int32, from int64, limit int) (*inspect.Log, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	hw := w.runs[len(w.runs)-1].to
	l := &inspect.Log{Topic: topic, Partition: partition, Pointers: inspect.Pointers{LastStableOffset: hw, HighWatermark: hw}}
	for _, r := range w.runs {
		for o := max(r.from, from); o < r.to && len(l.Entries) < limit; o++ {
			l.Entries = append(l.Entries, data(o, r.pid, inspect.TxnNone))
		}
	}
	return l, nil
}

// writerSource adds Writers to a writersLog.
type writerSource struct{ *writersLog }

func (w writerSource) Writers(_ context.Context, topic string, partition int32, from, to, _ int64) (*inspect.PartitionWriters, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if to < 0 {
		to = w.runs[len(w.runs)-1].to
	}
	out := &inspect.PartitionWriters{Topic: topic, Partition: partition, From: max(from, 0), To: to}
	for _, r := range w.runs {
		if r.to <= out.From || r.from >= to {
			continue
		}
		r.from = max(r.from, out.From)
		if !slices.ContainsFunc(out.Producers, func(p inspect.ProducerWrite) bool { return p.ProducerID == r.pid }) {
			out.Producers = append(out.Producers, inspect.ProducerWrite{ProducerID: r.pid, FirstOffset: r.from})
		}
	}
	return out, nil
}

// aliasesOf reads sub's messages until one names want producers, and
// returns that table as "pid=alias" strings, in table order.
func aliasesOf(t *testing.T, sub *Subscription, want int) []string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case raw, ok := <-sub.C:
			if !ok {
				t.Fatal("subscription closed")
			}
			var m Message
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			if len(m.Producers) >= want && (m.Type == TypeSnapshot || m.Type == TypeProducers) {
				var got []string
				for _, p := range m.Producers {
					got = append(got, p.Alias+"="+itoa(p.ProducerID))
				}
				return got
			}
		case <-deadline:
			t.Fatalf("no table of %d producers", want)
		}
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// TestProducerAliases: the feed numbers a partition's producers by their
// first offset in the log — not by what its tail holds — and every
// viewer, a reload included, gets the same table; producers that write
// later get the next numbers, in offset order, even in a burst longer
// than the tail.
func TestProducerAliases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		writers bool
		want    []string
	}{
		// The tail (3 offsets) holds only producer 7's records; 900
		// wrote first, at offset 0.
		{"numbered from the log start", true, []string{"P1=900", "P2=7"}},
		// Without a WriterSource the tail is all the feed knows.
		{"numbered from the tail", false, []string{"P1=7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			log := &writersLog{runs: []writerRun{{900, 0, 5}, {7, 5, 10}}}
			var src Source = log
			if tt.writers {
				src = writerSource{log}
			}
			hub := NewHub(src, nil, Config{PollInterval: 5 * time.Millisecond, TailEntries: 3})
			defer hub.Close()
			first, err := hub.Subscribe("t", 0)
			if err != nil {
				t.Fatal(err)
			}
			defer first.Close()
			if got := aliasesOf(t, first, len(tt.want)); !slices.Equal(got, tt.want) {
				t.Fatalf("first viewer: %v, want %v", got, tt.want)
			}
			reload, err := hub.Subscribe("t", 0)
			if err != nil {
				t.Fatal(err)
			}
			defer reload.Close()
			if got := aliasesOf(t, reload, len(tt.want)); !slices.Equal(got, tt.want) {
				t.Fatalf("after a reload: %v, want %v", got, tt.want)
			}
			// A burst longer than the tail: 900 again (known), 55, then
			// 66 — only 66's records are in the tail the next poll reads.
			log.grow(900, 1, 55, 4, 66, 3)
			want := append(slices.Clone(tt.want), "P3=55", "P4=66")
			if !tt.writers {
				want = []string{"P1=7", "P2=66"} // the tail is all it knows
			}
			if got := aliasesOf(t, reload, len(want)); !slices.Equal(got, want) {
				t.Fatalf("after new writers: %v, want %v", got, want)
			}
			if !tt.writers {
				return
			}
			// A burst whose new producer wrote only past the tail, the
			// tail all a known producer's: the table is sent all the same.
			log.grow(88, 4, 66, 3)
			want = append(want, "P5=88")
			if got := aliasesOf(t, reload, len(want)); !slices.Equal(got, want) {
				t.Fatalf("after a burst behind a known producer: %v, want %v", got, want)
			}
		})
	}
}

// TestAliasTableBounded: past MaxAliases producers the table stops
// growing, and a producer numbered once keeps its number.
func TestAliasTableBounded(t *testing.T) {
	t.Parallel()
	var a aliasTable
	for pid := range int64(MaxAliases + 10) {
		a.add(1000+pid, pid)
	}
	if got := len(a.list); got != MaxAliases {
		t.Fatalf("table of %d producers, want %d", got, MaxAliases)
	}
	if a.add(1000, 5) || a.list[0].Alias != "P1" || a.list[MaxAliases-1].Alias != "P"+itoa(MaxAliases) {
		t.Fatalf("renumbered: first %+v, last %+v", a.list[0], a.list[MaxAliases-1])
	}
}

// TestHubProducerAliases: the hub names a partition's producers as its
// pages do — from the running feed while one runs (here one that knows
// only its tail), else from the log start as a new feed would — and a
// source that lists no writers, with no feed, names none.
func TestHubProducerAliases(t *testing.T) {
	t.Parallel()
	names := func(list []ProducerAlias) []string {
		var out []string
		for _, p := range list {
			out = append(out, p.Alias+"="+itoa(p.ProducerID))
		}
		return out
	}
	ctx := context.Background()
	runs := []writerRun{{900, 0, 5}, {7, 5, 10}}

	scanned := NewHub(writerSource{&writersLog{runs: runs}}, nil, Config{})
	defer scanned.Close()
	got, err := scanned.ProducerAliases(ctx, "t", 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"P1=900", "P2=7"}; !slices.Equal(names(got), want) {
		t.Errorf("no feed: %v, want %v (numbered from the log start)", names(got), want)
	}

	tailOnly := NewHub(&writersLog{runs: runs}, nil, Config{PollInterval: 5 * time.Millisecond, TailEntries: 3})
	defer tailOnly.Close()
	if got, err := tailOnly.ProducerAliases(ctx, "t", 0, 1<<20); err != nil || len(got) != 0 {
		t.Errorf("no feed, no writers listed: %v, %v; want no names", names(got), err)
	}
	sub, err := tailOnly.Subscribe("t", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	shown := aliasesOf(t, sub, 1)
	got, err = tailOnly.ProducerAliases(ctx, "t", 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(got), shown) {
		t.Errorf("with a feed: %v, want the feed's table %v", names(got), shown)
	}
}
