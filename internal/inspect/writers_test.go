package inspect

import (
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestWriters: the producers of a partition in the order of their first
// offset (a transaction's marker counts as its producer's write), from
// the log start or, in a map, from the range's start; and the first and
// last write times.
func TestWriters(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			before := time.Now().Add(-time.Second)
			b := f.producer("b-app")
			a := f.producer("", kgo.ProducerLinger(0))
			f.begin(b)
			f.send(b, "B-1") // 0, its COMMIT at 1
			f.end(b, true)
			f.settle(2)      // Kafka writes the marker after EndTxn answers: A-1 must not overtake it
			f.send(a, "A-1") // 2
			f.begin(b)
			f.send(b, "B-2") // 3, COMMIT at 4
			f.end(b, true)
			f.settle(-1)
			after := time.Now().Add(time.Second)
			pidOf := func(o int64) int64 {
				t.Helper()
				l, err := f.ins.ReadLog(testCtx(t), f.topic, 0, o, 1)
				if err != nil || len(l.Entries) != 1 {
					t.Fatalf("offset %d: %v", o, err)
				}
				return l.Entries[0].ProducerID
			}
			pb, pa := pidOf(0), pidOf(2)
			w, err := f.ins.Writers(testCtx(t), f.topic, 0, -1, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			want := []ProducerWrite{{pb, 0}, {pa, 2}}
			if len(w.Producers) != 2 || w.Producers[0] != want[0] || w.Producers[1] != want[1] || w.To != 5 {
				t.Errorf("writers: got %+v to %d, want %+v to 5", w.Producers, w.To, want)
			}
			if w.FirstWrite.Before(before) || w.LastWrite.After(after) || w.LastWrite.Before(w.FirstWrite) {
				t.Errorf("first write %v, last %v: want both in [%v, %v], in order", w.FirstWrite, w.LastWrite, before, after)
			}
			m, err := f.ins.MapPartition(testCtx(t), f.topic, 0, MapRequest{From: 2, To: -1, Buckets: 1})
			if err != nil {
				t.Fatal(err)
			}
			want = []ProducerWrite{{pa, 2}, {pb, 3}}
			if len(m.Producers) != 2 || m.Producers[0] != want[0] || m.Producers[1] != want[1] {
				t.Errorf("map from 2: got %+v, want %+v", m.Producers, want)
			}
			if m.FirstWrite.IsZero() || m.LastWrite.Before(m.FirstWrite) {
				t.Errorf("map from 2: first write %v, last %v", m.FirstWrite, m.LastWrite)
			}
		})
	}
}
