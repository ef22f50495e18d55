package inspect

import (
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// produceBatch writes values as one record batch (lingering so that the
// client cannot split them) and fails the test if they were split.
func (e *env) produceBatch(producer string, values ...string) {
	e.t.Helper()
	p := e.producer(producer, kgo.ProducerLinger(50*time.Millisecond))
	recs := make([]*kgo.Record, len(values))
	for i, v := range values {
		recs[i] = &kgo.Record{Value: []byte(v)}
	}
	if err := p.ProduceSync(testCtx(e.t), recs...).FirstErr(); err != nil {
		e.t.Fatalf("produce: %v", err)
	}
}

func values(prefix string, n int) []string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return vs
}

func TestReadLogWindows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testCtx(t)
	// 0: tx-hold opens a transaction and keeps the LSO at 0.
	// 1..10: one batch of tx-b, committed by the marker at 11.
	// 12..21: one batch of tx-c, aborted by the marker at 22.
	e.run(begin("tx-hold", "hold"))
	if err := e.producer("tx-b", kgo.ProducerLinger(50*time.Millisecond)).BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	e.produceBatch("tx-b", values("b", 10)...)
	e.run(commit("tx-b"))
	if err := e.producer("tx-c", kgo.ProducerLinger(50*time.Millisecond)).BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	e.produceBatch("tx-c", values("c", 10)...)
	e.run(abort("tx-c"))

	full := e.readAll()
	if want := (Pointers{0, 0, 23}); full.Pointers != want {
		t.Fatalf("pointers: got %+v, want %+v", full.Pointers, want)
	}
	if b := full.Entries[1]; b.BatchBaseOffset != 1 || b.BatchLastOffset != 10 {
		t.Fatalf("tx-b batch: got %d..%d, want one batch 1..10", b.BatchBaseOffset, b.BatchLastOffset)
	}

	tests := []struct {
		name        string
		from        int64
		limit       int
		fetchBytes  int32
		scanBudget  int64
		wantOffsets []int64 // first and last offset, or nil for none
		wantTxn     string  // of every data entry
	}{
		{"middle of a committed batch", 4, 3, 0, -1, []int64{4, 6}, TxnCommitted},
		{"middle of an aborted batch", 15, 2, 0, -1, []int64{15, 16}, TxnAborted},
		{"marker past the window, one batch per fetch", 2, 2, 1, -1, []int64{2, 3}, TxnCommitted},
		{"marker past the scan budget", 2, 2, 1, 0, []int64{2, 3}, TxnOpen},
		{"from at the high watermark", 23, 10, 0, -1, nil, ""},
		{"from past the high watermark", 1000, 10, 0, -1, nil, ""},
		{"window cut by the high watermark", 20, 10, 0, -1, []int64{20, 22}, ""},
		{"negative from starts at log start", -1, 1, 0, -1, []int64{0, 0}, TxnOpen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins := New(e.client)
			if tt.fetchBytes > 0 {
				ins.FetchBytes = tt.fetchBytes
			}
			if tt.scanBudget >= 0 {
				ins.ScanBudget = tt.scanBudget
			}
			log, err := ins.ReadLog(ctx, testTopic, 0, tt.from, tt.limit)
			if err != nil {
				t.Fatalf("ReadLog: %v", err)
			}
			if log.Pointers != full.Pointers {
				t.Errorf("pointers: got %+v, want %+v", log.Pointers, full.Pointers)
			}
			if tt.wantOffsets == nil {
				if len(log.Entries) != 0 || log.Entries == nil {
					t.Fatalf("got %d entries (nil %v), want an empty list", len(log.Entries), log.Entries == nil)
				}
				return
			}
			first, last := tt.wantOffsets[0], tt.wantOffsets[1]
			if got := len(log.Entries); int64(got) != last-first+1 {
				t.Fatalf("got %d entries, want %d..%d", got, first, last)
			}
			for i, en := range log.Entries {
				if en.Offset != first+int64(i) {
					t.Errorf("entry %d: offset %d, want %d", i, en.Offset, first+int64(i))
				}
				if tt.wantTxn != "" && en.Txn != tt.wantTxn {
					t.Errorf("offset %d: txn %s, want %s", en.Offset, en.Txn, tt.wantTxn)
				}
				// Everything but the outcome matches the full read.
				ref := full.Entries[en.Offset]
				if tt.wantTxn == TxnOpen {
					ref.Txn = TxnOpen
				}
				if !reflect.DeepEqual(en, ref) {
					t.Errorf("offset %d: got %+v, want %+v", en.Offset, en, ref)
				}
			}
		})
	}
}

func TestReadLogBatchFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.producer("tx-b", kgo.ProducerLinger(50*time.Millisecond)).BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	e.produceBatch("tx-b", values("b", 5)...)
	e.run(commit("tx-b"))
	log, err := e.ins.ReadLog(testCtx(t), testTopic, 0, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, en := range log.Entries {
		o := int64(2 + i)
		if en.BatchBaseOffset != 0 || en.BatchLastOffset != 4 || en.Sequence != int32(o) ||
			en.ProducerID < 0 || !en.Transactional || en.Control || en.Compression != "none" ||
			en.Value == nil || *en.Value != fmt.Sprintf("b%d", o) || en.Timestamp.IsZero() {
			t.Errorf("offset %d: %+v", o, en)
		}
	}
}

func TestLimitClamp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// More than MaxLimit records, few batches.
	p := e.producer("raw", kgo.ProducerLinger(20*time.Millisecond), kgo.MaxBufferedRecords(MaxLimit+400))
	recs := make([]*kgo.Record, MaxLimit+300)
	for i := range recs {
		recs[i] = &kgo.Record{Value: []byte("v")}
	}
	if err := p.ProduceSync(testCtx(t), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		limit int
		want  int
	}{
		{0, DefaultLimit},
		{-5, DefaultLimit},
		{7, 7},
		{MaxLimit, MaxLimit},
		{MaxLimit * 10, MaxLimit},
	}
	for _, tt := range tests {
		log, err := e.ins.ReadLog(testCtx(t), testTopic, 0, 0, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(log.Entries); got != tt.want {
			t.Errorf("limit %d: got %d entries, want %d", tt.limit, got, tt.want)
		}
		recs, err := e.ins.ReadRecords(testCtx(t), testTopic, 0, ReadCommitted, 0, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(recs); got != tt.want {
			t.Errorf("ReadRecords limit %d: got %d records, want %d", tt.limit, got, tt.want)
		}
	}
}

// TestReadLogSmallFetches checks that reading one batch per fetch gives the
// same log as reading it in one go.
func TestReadLogSmallFetches(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.run(
		produce("plain", "p0"), begin("tx1", "a"), begin("tx2", "b"), produce("plain", "c"),
		produce("tx1", "d"), abort("tx2"), begin("tx3", "o"), produce("tx1", "e"), commit("tx1"),
		produce("plain", "f"),
	)
	want := e.readAll()
	small := New(e.client)
	small.FetchBytes = 1
	for from := int64(0); from < want.HighWatermark; from++ {
		for limit := 1; int64(limit) <= want.HighWatermark-from; limit++ {
			got, err := small.ReadLog(testCtx(t), testTopic, 0, from, limit)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Entries, want.Entries[from:from+int64(limit)]) {
				t.Fatalf("from %d limit %d: got %+v, want %+v", from, limit, got.Entries, want.Entries[from:from+int64(limit)])
			}
		}
	}
}

// TestReadLogOngoingTransactionNeedsNoScan checks that a record of a
// transaction the broker reports as ongoing is left open without reading
// the rest of the partition for a marker that cannot be there.
func TestReadLogOngoingTransactionNeedsNoScan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.run(produce("plain", "a"), begin("tx1", "open"))
	for range 30 {
		e.run(produce("plain", "later"))
	}
	var fetches atomic.Int64
	e.cluster.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		e.cluster.KeepControl()
		fetches.Add(1)
		return nil, nil, false
	})
	ins := New(e.client)
	ins.FetchBytes = 1 // one batch per fetch
	log, err := ins.ReadLog(testCtx(t), testTopic, 0, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkEntries(t, log, 1, []want{dataOpen})
	if got := fetches.Load(); got != 1 {
		t.Errorf("ReadLog sent %d fetches, want 1", got)
	}
}
