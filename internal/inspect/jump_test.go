package inspect

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

var allJumpKinds = []JumpKind{JumpPlain, JumpCommitted, JumpAborted, JumpOpen, JumpMarker, JumpCommitMarker, JumpAbortMarker, JumpGap}

// expectedJump finds, in ReadLog's entries, the first offset of kind in
// [from, to) or the last; -1 when there is none.
func expectedJump(entries []Entry, kind JumpKind, from, to int64, backward bool) int64 {
	found := int64(-1)
	for i := range entries {
		e := &entries[i]
		if e.Offset < from || e.Offset >= to || !kind.matches(classOfEntry(e)) {
			continue
		}
		if !backward {
			return e.Offset
		}
		found = e.Offset
	}
	return found
}

// TestJumpMatchesReadLog checks next/previous jumps of every kind from
// several offsets against ReadLog's entries, on kfake and real Kafka.
func TestJumpMatchesReadLog(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			lso := f.mixed()
			hw := f.settle(lso).HighWatermark
			entries := f.walk(0, hw, MaxLimit)
			for _, k := range allJumpKinds {
				for _, at := range []int64{0, 7, lso - 1, lso, lso + 9, hw - 2, hw} {
					next, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: k, From: at + 1, To: -1})
					if err != nil {
						t.Fatal(err)
					}
					checkJump(t, k, "next after", at, next, expectedJump(entries, k, at+1, hw, false))
					prev, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: k, From: -1, To: at, Backward: true})
					if err != nil {
						t.Fatal(err)
					}
					checkJump(t, k, "previous before", at, prev, expectedJump(entries, k, 0, at, true))
				}
			}
		})
	}
}

func checkJump(t *testing.T, k JumpKind, what string, at int64, got *JumpResult, want int64) {
	t.Helper()
	switch {
	case got.Next != nil:
		t.Errorf("%s %s %d: budget ran out at %d", k, what, at, *got.Next)
	case want < 0 && got.Offset != nil:
		t.Errorf("%s %s %d: got %d, want none", k, what, at, *got.Offset)
	case want >= 0 && (got.Offset == nil || *got.Offset != want):
		t.Errorf("%s %s %d: got %v, want %d", k, what, at, got.Offset, want)
	}
}

// TestJumpBudget runs jumps with a budget of one fetch and follows Next:
// they end where an unbounded jump does.
func TestJumpBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "kfake", nil)
	p := f.producer("")
	for range 40 {
		f.send(p, values("v", 50)...)
	}
	tx := f.producer("tx")
	f.begin(tx)
	f.send(tx, "late")
	f.end(tx, false)
	hw := f.settle(-1).HighWatermark
	f.ins.FetchBytes = 4 << 10
	tests := []struct {
		kind     JumpKind
		backward bool
		want     int64 // -1: none
	}{
		{JumpAbortMarker, false, hw - 1},
		{JumpAborted, false, hw - 2},
		{JumpGap, false, -1},
		{JumpPlain, true, hw - 3},
		{JumpGap, true, -1},
	}
	for _, tt := range tests {
		req := JumpRequest{Kind: tt.kind, From: 0, To: -1, MaxBytes: 1, Backward: tt.backward}
		got, calls := int64(-1), 0
		for {
			calls++
			res, err := f.ins.Jump(testCtx(t), f.topic, 0, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Offset != nil {
				got = *res.Offset
				break
			}
			if res.Next == nil {
				break
			}
			if tt.backward {
				req.To = *res.Next
			} else {
				req.From = *res.Next
			}
		}
		if got != tt.want || calls < 2 && tt.want != hw-3 {
			t.Errorf("%s backward=%v: got %d after %d calls, want %d after several", tt.kind, tt.backward, got, calls, tt.want)
		}
	}
	if _, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: "sideways", From: -1, To: -1}); !errors.Is(err, ErrInvalidQuery) {
		t.Errorf("unknown kind: got %v, want ErrInvalidQuery", err)
	}
	res, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: JumpPlain, From: hw + 5, To: -1})
	if err != nil || res.Offset != nil || res.Next != nil {
		t.Errorf("jump past the high watermark: got %+v, %v; want nothing", res, err)
	}
}

// sendRecords produces recs with p in one call (one batch when p lingers).
func (f *fixture) sendRecords(p *kgo.Client, recs ...*kgo.Record) {
	f.t.Helper()
	if err := p.ProduceSync(testCtx(f.t), recs...).FirstErr(); err != nil {
		f.t.Fatalf("produce %d records: %v", len(recs), err)
	}
}

// tombstone is a record with key and a null value.
func tombstone(key string) *kgo.Record { return &kgo.Record{Key: []byte(key)} }

// keyed is a record with key and value.
func keyed(key, value string) *kgo.Record {
	return &kgo.Record{Key: []byte(key), Value: []byte(value)}
}

// TestJumpTombstone jumps to the next and previous tombstone on a log of
// tombstones plain, aborted, committed, open and in the middle of a
// compressed batch, among records that are not tombstones (a null key and
// value, an empty value, markers), on kfake and real Kafka. The offsets it
// finds are those ReadLog's entries show with a key and a null value.
func TestJumpTombstone(t *testing.T) {
	t.Parallel()
	for _, kind := range brokerKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, kind, nil)
			plain := f.producer("")
			f.sendRecords(plain, keyed("a", "1"), keyed("b", "2")) // 0, 1
			f.sendRecords(plain, &kgo.Record{})                    // 2: no key, null value
			f.sendRecords(plain, keyed("e", ""))                   // 3: an empty value
			f.sendRecords(plain, tombstone("a"))                   // 4
			tx := f.producer("tx")
			f.begin(tx)
			f.sendRecords(tx, keyed("x", "1"), tombstone("x")) // 5, 6 (aborted)
			f.end(tx, false)                                   // 7 ABORT
			f.settle(-1)
			f.begin(tx)
			f.sendRecords(tx, tombstone("b")) // 8 (committed)
			f.end(tx, true)                   // 9 COMMIT
			f.settle(-1)
			zstd := f.producer("", kgo.ProducerBatchCompression(kgo.ZstdCompression()), kgo.ProducerLinger(50*time.Millisecond))
			long := strings.Repeat("compressible ", 50)                                               // franz-go sends a batch compressed only when that makes it smaller
			f.sendRecords(zstd, keyed("c", long), keyed("c", long), tombstone("c"), keyed("d", long)) // 10–13, 12 a tombstone
			f.begin(tx)
			f.sendRecords(tx, tombstone("d")) // 14 (open)
			hw := f.settle(14).HighWatermark
			if hw != 15 {
				t.Fatalf("high watermark %d, want 15", hw)
			}

			var got []int64
			entries := f.walk(0, hw, MaxLimit)
			for _, e := range entries {
				if e.Kind == KindData && e.Key != nil && e.Value == nil {
					got = append(got, e.Offset)
				}
			}
			if want := []int64{4, 6, 8, 12, 14}; !equalOffsets(got, want) {
				t.Fatalf("ReadLog shows tombstones at %v, want %v", got, want)
			}
			if entries[6].Txn != TxnAborted || entries[12].Compression != "zstd" || entries[12].BatchBaseOffset != 10 || entries[14].Txn != TxnOpen {
				t.Fatalf("offsets 6, 12, 14: %+v, %+v, %+v", entries[6], entries[12], entries[14])
			}

			tests := []struct {
				from, to int64
				backward bool
				want     int64 // -1: none
			}{
				{0, -1, false, 4},
				{5, -1, false, 6}, // aborted: still a tombstone in the log
				{7, -1, false, 8}, // past the ABORT marker
				{9, -1, false, 12},
				{13, -1, false, 14}, // open
				{15, -1, false, -1},
				{0, 4, false, -1}, // To is not in the range
				{-1, 15, true, 14},
				{-1, 14, true, 12},
				{-1, 12, true, 8},
				{-1, 8, true, 6},
				{-1, 6, true, 4},
				{-1, 4, true, -1},
				{10, 12, true, -1},
			}
			for _, tt := range tests {
				res, err := f.ins.Jump(testCtx(t), f.topic, 0, JumpRequest{Kind: JumpTombstone, From: tt.from, To: tt.to, Backward: tt.backward})
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("tombstone in [%d, %d) backward=%v", tt.from, tt.to, tt.backward)
				switch {
				case res.Next != nil:
					t.Errorf("%s: budget ran out at %d", what, *res.Next)
				case res.Kind != JumpTombstone:
					t.Errorf("%s: answer of kind %q", what, res.Kind)
				case tt.want < 0 && res.Offset != nil:
					t.Errorf("%s: got %d, want none", what, *res.Offset)
				case tt.want >= 0 && res.Offset == nil:
					t.Errorf("%s: got none, want %d", what, tt.want)
				case tt.want >= 0 && *res.Offset != tt.want:
					t.Errorf("%s: got %d, want %d", what, *res.Offset, tt.want)
				}
			}
			f.end(tx, false)
		})
	}
}

// TestJumpTombstoneBudget: a jump to a tombstone reads no more than the
// other kinds' byte budget; when it runs out first the answer says where
// to go on (Next), forward and backward, and following Next finds it.
func TestJumpTombstoneBudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "kfake", nil)
	p := f.producer("")
	for range 40 {
		f.send(p, values("v", 50)...)
	}
	f.sendRecords(p, tombstone("gone")) // 2000
	for range 40 {
		f.send(p, values("w", 50)...)
	}
	hw := f.settle(-1).HighWatermark
	f.ins.FetchBytes = 4 << 10
	for _, backward := range []bool{false, true} {
		req := JumpRequest{Kind: JumpTombstone, From: 0, To: -1, MaxBytes: 1, Backward: backward}
		got, calls := int64(-1), 0
		for calls < 1000 {
			calls++
			res, err := f.ins.Jump(testCtx(t), f.topic, 0, req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Offset != nil {
				got = *res.Offset
				break
			}
			if res.Next == nil {
				break
			}
			if backward {
				if *res.Next != res.ScannedFrom || *res.Next <= 2000 {
					t.Fatalf("backward: next %d, scanned [%d, %d)", *res.Next, res.ScannedFrom, res.ScannedTo)
				}
				req.To = *res.Next
			} else {
				if *res.Next != res.ScannedTo || *res.Next > 2000 {
					t.Fatalf("forward: next %d, scanned [%d, %d)", *res.Next, res.ScannedFrom, res.ScannedTo)
				}
				req.From = *res.Next
			}
		}
		if got != 2000 || calls < 2 {
			t.Errorf("backward=%v: got %d after %d calls, want 2000 after several (hw %d)", backward, got, calls, hw)
		}
	}
}
