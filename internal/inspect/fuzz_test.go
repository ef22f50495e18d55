package inspect

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// capturedBatches produces data, transactional and control batches with
// every codec on kfake and returns what a raw fetch from offset 0 carries:
// the RecordBatches bytes and the aborted transactions.
func capturedBatches(t testing.TB) ([]byte, []kmsg.FetchResponseTopicPartitionAbortedTransaction) {
	t.Helper()
	e := newEnv(t)
	codecs := map[string]kgo.CompressionCodec{
		"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
		"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
	}
	ctx := testCtx(t)
	for name, codec := range codecs {
		opts := []kgo.Opt{kgo.ProducerBatchCompression(codec), kgo.ProducerLinger(20 * time.Millisecond)}
		tx := e.producer("tx-"+name, opts...)
		recs := []*kgo.Record{
			{Key: []byte("k"), Value: []byte(strings.Repeat("compressible ", 20) + name)},
			{Value: []byte{0xff, 0}, Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("v")}, {Key: "n"}}},
		}
		for _, commit := range []bool{true, false} {
			if err := tx.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			if err := tx.ProduceSync(ctx, recs...).FirstErr(); err != nil {
				t.Fatal(err)
			}
			if err := tx.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.producer("plain-"+name, opts...).ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	ref, err := e.ins.locate(ctx, testTopic, 0)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := e.ins.fetch(ctx, &ref, 0, true, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return rp.RecordBatches, rp.AbortedTransactions
}

// FuzzDecodeBatches feeds arbitrary bytes to the batch decoder as one fetch
// response. It must never panic, and what it returns must be a well-formed
// window.
func FuzzDecodeBatches(f *testing.F) {
	raw, aborted := capturedBatches(f)
	var abortPID, abortFirst int64 = -1, -1
	if len(aborted) > 0 {
		abortPID, abortFirst = aborted[0].ProducerID, aborted[0].FirstOffset
	}
	f.Add(raw, int64(0), uint16(200), uint16(40), uint16(40), true, abortPID, abortFirst)
	f.Add(raw, int64(3), uint16(5), uint16(40), uint16(10), false, int64(-1), int64(-1))
	// One batch at a time, and truncated.
	for rest := raw; len(rest) > 0; {
		b, next, complete, err := splitBatch(rest)
		if err != nil || !complete {
			break
		}
		one := rest[:len(rest)-len(next)]
		f.Add(one, b.BaseOffset, uint16(10), uint16(40), uint16(40), false, int64(-1), int64(-1))
		f.Add(one[:len(one)-1], b.BaseOffset, uint16(10), uint16(40), uint16(40), false, int64(-1), int64(-1))
		f.Add(one[:batchOverhead], b.BaseOffset, uint16(10), uint16(40), uint16(40), false, int64(-1), int64(-1))
		rest = next
	}
	f.Add(raw[:len(raw)/2], int64(0), uint16(200), uint16(40), uint16(40), true, abortPID, abortFirst)

	codecs := newCodecs(1 << 20) // shared, as an Inspector shares it
	f.Fuzz(func(t *testing.T, raw []byte, from int64, limit, hwSpan, lsoSpan uint16, committed bool, abortPID, abortFirst int64) {
		from &= 1<<40 - 1
		n := 1 + int(limit)%512
		hw := from + int64(hwSpan)
		ptrs := Pointers{LogStartOffset: 0, HighWatermark: hw, LastStableOffset: from + int64(min(lsoSpan, hwSpan))}
		var list []kmsg.FetchResponseTopicPartitionAbortedTransaction
		if committed {
			list = append(list, kmsg.FetchResponseTopicPartitionAbortedTransaction{ProducerID: abortPID, FirstOffset: abortFirst})
		}
		entries, err := decodeWith(codecs, raw, from, n, ptrs, committed, list)
		if err != nil {
			return
		}
		want := max(0, min(from+int64(n), hw)-from)
		if int64(len(entries)) != want {
			t.Fatalf("got %d entries, want %d", len(entries), want)
		}
		for i, e := range entries {
			if e.Offset != from+int64(i) {
				t.Fatalf("entry %d has offset %d", i, e.Offset)
			}
			switch {
			case e.Kind != KindData && e.Kind != KindControl && e.Kind != KindGap:
				t.Fatalf("offset %d: kind %q", e.Offset, e.Kind)
			case e.Kind != KindData && (e.ReadCommitted || e.ReadUncommitted):
				t.Fatalf("offset %d: %s delivered", e.Offset, e.Kind)
			case e.ReadCommitted && !e.ReadUncommitted:
				t.Fatalf("offset %d: read_committed without read_uncommitted", e.Offset)
			case e.ReadCommitted && e.Offset >= ptrs.LastStableOffset:
				t.Fatalf("offset %d: read_committed at or past the LSO", e.Offset)
			case e.Txn != TxnNone && e.Txn != TxnOpen && e.Txn != TxnCommitted && e.Txn != TxnAborted:
				t.Fatalf("offset %d: txn %q", e.Offset, e.Txn)
			case e.Marker != "" && e.Kind != KindControl:
				t.Fatalf("offset %d: marker on %s", e.Offset, e.Kind)
			case e.Value != nil && e.ValueEncoding == "" && len(*e.Value) > MaxValueBytes:
				t.Fatalf("offset %d: value of %d bytes", e.Offset, len(*e.Value))
			case !e.Timestamp.IsZero() && (e.Timestamp.Year() < 0 || e.Timestamp.Year() > 9999):
				// The only way an Entry can fail to marshal (a
				// full json.Marshal here would triple the cost of
				// an execution, and of minimizing).
				t.Fatalf("offset %d: timestamp %v cannot be written as JSON", e.Offset, e.Timestamp)
			}
		}
	})
}
