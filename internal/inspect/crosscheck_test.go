package inspect

import (
	"testing"
)

// TestVisibilityMatchesConsumers is the key correctness check: for each
// scenario and isolation level, the offsets ReadLog marks as delivered are
// exactly what a franz-go consumer at that level receives (observed by the
// oracle in helpers_test.go), and ReadRecords returns the same.
func TestVisibilityMatchesConsumers(t *testing.T) {
	t.Parallel()
	scenarios := []struct {
		name  string
		steps []step
		// What a consumer from offset 0 receives, worked out by hand
		// from Kafka's rules, so the oracle itself is checked.
		rc, ru []int64
	}{
		{"empty", nil, []int64{}, []int64{}},
		{"non-transactional", []step{produce("plain", "a", "b"), produce("raw", "c")}, []int64{0, 1, 2}, []int64{0, 1, 2}},
		{"committed", []step{begin("tx1", "a", "b"), commit("tx1"), produce("plain", "c")}, []int64{0, 1, 3}, []int64{0, 1, 3}},
		{"aborted", []step{begin("tx1", "a", "b"), abort("tx1")}, []int64{}, []int64{0, 1}},
		{"aborted at the end", []step{produce("plain", "a"), begin("tx1", "b"), abort("tx1")}, []int64{0}, []int64{0, 1}},
		{"open", []step{produce("plain", "a"), begin("tx1", "b", "c")}, []int64{0}, []int64{0, 1, 2}},
		{"write after an open transaction", []step{
			produce("plain", "p0"), begin("tx1", "c1"), commit("tx1"),
			begin("tx2", "a1"), abort("tx2"), begin("tx3", "o1"), produce("plain", "p1"),
		}, []int64{0, 1}, []int64{0, 1, 3, 5, 6}},
		{"interleaved", []step{
			begin("tx1", "a"), begin("tx2", "b"), produce("plain", "c"),
			produce("tx1", "d"), abort("tx2"), produce("tx1", "e"), commit("tx1"),
		}, []int64{0, 2, 3, 5}, []int64{0, 1, 2, 3, 5}},
		{"aborted below the LSO, marker above it", []step{
			produce("plain", "a"), begin("tx1", "b"), begin("tx2", "c"), abort("tx1"), produce("plain", "d"),
		}, []int64{0}, []int64{0, 1, 2, 4}},
		{"committed below the LSO, marker above it", []step{
			begin("tx1", "a"), begin("tx2", "b"), produce("tx1", "c"), commit("tx1"),
		}, []int64{0}, []int64{0, 1, 2}},
		{"seed 000 lesson 3", []step{
			begin("tx-app", "O-1 total=30000"), commit("tx-app"),
			begin("tx-app", "O-2 total=42000"), abort("tx-app"),
			begin("tx-app", "O-2 total=42000"), commit("tx-app"),
			begin("tx-app", "O-3 total=27000"), commit("tx-app"),
		}, []int64{0, 4, 6}, []int64{0, 2, 4, 6}},
		{"many aborts then commits", []step{
			begin("tx1", "a"), abort("tx1"), begin("tx1", "b"), abort("tx1"),
			begin("tx2", "c"), produce("plain", "d"), commit("tx2"), begin("tx1", "e"), commit("tx1"),
		}, []int64{4, 5, 7}, []int64{0, 2, 4, 5, 7}},
		{"long aborted run around a committed record below the LSO", []step{
			produce("plain", "a"), begin("tx1", values("x", 300)...), begin("tx3", "deep"),
			produce("tx1", values("y", 300)...), begin("tx2", "hold"), abort("tx1"), commit("tx3"),
		}, []int64{0, 301}, nil},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.run(sc.steps...)
			log := e.readAll()
			for _, iso := range []Isolation{ReadCommitted, ReadUncommitted} {
				for _, from := range []int64{0, 1, 2} {
					oracle := e.consume(iso, from)
					if from == 0 {
						want := sc.ru
						if iso == ReadCommitted {
							want = sc.rc
						}
						if want != nil && !equalOffsets(oracle, want) {
							t.Errorf("%s: consumer received %v, want %v", iso, oracle, want)
						}
					}
					var fromLog []int64
					for _, o := range visible(log, iso) {
						if o >= from {
							fromLog = append(fromLog, o)
						}
					}
					if fromLog == nil {
						fromLog = []int64{}
					}
					if !equalOffsets(fromLog, oracle) {
						t.Errorf("%s from %d: ReadLog says %v, consumer received %v", iso, from, fromLog, oracle)
					}
					recs, err := e.ins.ReadRecords(testCtx(t), testTopic, 0, iso, from, MaxLimit)
					if err != nil {
						t.Fatalf("ReadRecords %s: %v", iso, err)
					}
					if got := recordOffsets(recs); !equalOffsets(got, oracle) {
						t.Errorf("%s from %d: ReadRecords returned %v, consumer received %v", iso, from, got, oracle)
					}
				}
			}
		})
	}
}
