package inspect

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestReadLogDeletedRecordsAreGaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.run(produce("plain", "a"), produce("plain", "b"), produce("plain", "c"), produce("plain", "d"), produce("plain", "e"))
	var offsets kadm.Offsets
	offsets.Add(kadm.Offset{Topic: testTopic, Partition: 0, At: 3})
	resp, err := kadm.NewClient(e.client).DeleteRecords(testCtx(t), offsets)
	if err != nil {
		t.Fatal(err)
	}
	if err := resp.Error(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		from int64
		want []want
	}{
		{"from zero", 0, []want{gapDeleted, gapDeleted, gapDeleted, dataNone, dataNone}},
		{"from log start", -1, []want{dataNone, dataNone}},
		{"from inside the deleted range", 2, []want{gapDeleted, dataNone, dataNone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log, err := e.ins.ReadLog(testCtx(t), testTopic, 0, tt.from, 100)
			if err != nil {
				t.Fatal(err)
			}
			if want := (Pointers{3, 5, 5}); log.Pointers != want {
				t.Errorf("pointers: got %+v, want %+v", log.Pointers, want)
			}
			from := tt.from
			if from < 0 {
				from = 3
			}
			checkEntries(t, log, from, tt.want)
			for _, en := range log.Entries {
				if en.Kind == KindGap && (en.ProducerID != -1 || en.BatchBaseOffset != -1 || en.Key != nil || !en.Timestamp.IsZero()) {
					t.Errorf("gap %d: %+v", en.Offset, en)
				}
			}
		})
	}
	recs, err := e.ins.ReadRecords(testCtx(t), testTopic, 0, ReadUncommitted, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := recordOffsets(recs), []int64{3, 4}; !equalOffsets(got, want) {
		t.Errorf("ReadRecords: got %v, want %v", got, want)
	}
}

// testRecord is a record of a hand-built batch.
type testRecord struct {
	delta int32
	key   []byte
	value []byte
}

// buildBatch encodes a v2 record batch as a broker returns it (no CRC:
// the decoder does not check it).
func buildBatch(base int64, lastDelta int32, attrs int16, pid int64, records ...testRecord) []byte {
	var recs []byte
	for _, r := range records {
		rec := kmsg.Record{OffsetDelta: r.delta, Key: r.key, Value: r.value}
		body := rec.AppendTo(nil)
		// AppendTo writes Length as given (0); rewrite it.
		length := len(body) - 1
		recs = binary.AppendVarint(recs, int64(length))
		recs = append(recs, body[1:]...)
	}
	b := kmsg.RecordBatch{
		FirstOffset:     base,
		Length:          int32(batchOverhead - batchLengthStart + len(recs)),
		Magic:           2,
		Attributes:      attrs,
		LastOffsetDelta: lastDelta,
		FirstTimestamp:  1_700_000_000_000,
		MaxTimestamp:    1_700_000_000_000,
		ProducerID:      pid,
		ProducerEpoch:   0,
		FirstSequence:   -1,
		NumRecords:      int32(len(records)),
		Records:         recs,
	}
	return b.AppendTo(nil)
}

func controlKey(typ int16) []byte { return []byte{0, 0, 0, byte(typ)} }

// decodeBatches runs the batch decoder over raw as one fetch response: the
// entries of [from, from+limit) given the pointers. It is the fuzz target.
func decodeBatches(raw []byte, from int64, limit int, ptrs Pointers, committed bool, aborted []kmsg.FetchResponseTopicPartitionAbortedTransaction) ([]Entry, error) {
	return decodeWith(newCodecs(1<<20), raw, from, limit, ptrs, committed, aborted)
}

func decodeWith(c *codecs, raw []byte, from int64, limit int, ptrs Pointers, committed bool, aborted []kmsg.FetchResponseTopicPartitionAbortedTransaction) ([]Entry, error) {
	end := min(from+int64(limit), ptrs.HighWatermark)
	if from >= end {
		return []Entry{}, nil
	}
	w := newWindow(from, end, ptrs, c, 0)
	if _, _, err := w.feed(raw, from, committed, aborted); err != nil {
		return nil, err
	}
	entries := w.finish()
	settleEntries(entries, func() bool { return false }) // a topic not compacted
	return entries, nil
}

func TestDecodeHandBuiltBatches(t *testing.T) {
	t.Parallel()
	v := []byte("v")
	const pid = 7
	holes := buildBatch(10, 6, 0, -1, testRecord{0, nil, v}, testRecord{2, nil, v}, testRecord{3, nil, v}, testRecord{6, nil, v})
	txn := buildBatch(17, 1, attrTransactional, pid, testRecord{0, nil, v}, testRecord{1, nil, v})
	commitBatch := buildBatch(19, 0, attrTransactional|attrControl, pid, testRecord{0, controlKey(1), []byte{0, 0, 0, 0, 0, 0}})
	abortBatch := buildBatch(19, 0, attrTransactional|attrControl, pid, testRecord{0, controlKey(0), []byte{0, 0, 0, 0, 0, 0}})
	legacy := append(binary.BigEndian.AppendUint64(nil, 21), 0, 0, 0, 6, 0, 0, 0, 0, 1, 0) // magic 1, 6 bytes
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	ptrs := Pointers{0, 22, 22}
	open := Pointers{0, 17, 22}
	tests := []struct {
		name      string
		raw       []byte
		from      int64
		limit     int
		ptrs      Pointers
		committed bool
		aborted   []kmsg.FetchResponseTopicPartitionAbortedTransaction
		want      []want
	}{
		{
			name: "holes inside a batch and before it", raw: holes, from: 8, limit: 9, ptrs: ptrs,
			want: []want{gapUnknown, gapUnknown, dataNone, gapCompacted, dataNone, dataNone, gapCompacted, gapCompacted, dataNone},
		},
		{
			name: "marker resolves", raw: cat(txn, commitBatch), from: 17, limit: 3, ptrs: ptrs,
			want: []want{dataCommitted, dataCommitted, commitMarker},
		},
		{
			name: "marker past the window resolves", raw: cat(txn, abortBatch), from: 17, limit: 1, ptrs: ptrs,
			want: []want{dataAborted},
		},
		{
			name: "no marker is open", raw: txn, from: 17, limit: 5, ptrs: open,
			want: []want{dataOpen, dataOpen, gapUnknown, gapUnknown, gapUnknown},
		},
		{
			name: "truncated tail is ignored", raw: cat(txn, commitBatch[:len(commitBatch)-3]), from: 17, limit: 3, ptrs: open,
			want: []want{dataOpen, dataOpen, gapUnknown},
		},
		{
			name: "aborted list below the LSO", raw: txn, from: 17, limit: 2, ptrs: ptrs, committed: true,
			aborted: []kmsg.FetchResponseTopicPartitionAbortedTransaction{{ProducerID: pid, FirstOffset: 17}},
			want:    []want{dataAborted, dataAborted},
		},
		{
			name: "not in the aborted list below the LSO", raw: txn, from: 17, limit: 2, ptrs: ptrs, committed: true,
			aborted: []kmsg.FetchResponseTopicPartitionAbortedTransaction{{ProducerID: pid + 1, FirstOffset: 17}},
			want:    []want{dataCommitted, dataCommitted},
		},
		{
			name: "legacy message set is a gap", raw: cat(commitBatch, legacy), from: 19, limit: 3, ptrs: ptrs,
			want: []want{commitMarker, gapUnknown, gapUnknown},
		},
		{
			name: "batch starting before the window", raw: holes, from: 13, limit: 2, ptrs: ptrs,
			want: []want{dataNone, gapCompacted}, // a hole at the end of a batch
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, err := decodeBatches(tt.raw, tt.from, tt.limit, tt.ptrs, tt.committed, tt.aborted)
			if err != nil {
				t.Fatal(err)
			}
			checkEntries(t, &Log{Entries: entries}, tt.from, tt.want)
		})
	}
}

func TestDecodeCorruptBatches(t *testing.T) {
	t.Parallel()
	v := []byte("v")
	good := buildBatch(0, 1, 0, -1, testRecord{0, nil, v}, testRecord{1, nil, v})
	corrupt := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	tests := []struct {
		name string
		raw  []byte
	}{
		{"negative length", corrupt(func(b []byte) { binary.BigEndian.PutUint32(b[8:], 0xffffffff) })},
		{"length shorter than a header", corrupt(func(b []byte) { binary.BigEndian.PutUint32(b[8:], 20) })},
		{"negative last offset delta", corrupt(func(b []byte) { binary.BigEndian.PutUint32(b[23:], 0xffffffff) })},
		{"unknown codec", corrupt(func(b []byte) { b[22] = 7 })},
		{"gzip that is not", corrupt(func(b []byte) { b[22] = 1 })},
		{"record past the last offset", corrupt(func(b []byte) { binary.BigEndian.PutUint32(b[23:], 0) })},
		{"more records than bytes", corrupt(func(b []byte) { binary.BigEndian.PutUint32(b[57:], 1000) })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeBatches(tt.raw, 0, 10, Pointers{0, 2, 2}, false, nil)
			if !errors.Is(err, ErrCorruptBatch) {
				t.Errorf("got %v, want ErrCorruptBatch", err)
			}
		})
	}
	// The uncorrupted batch decodes.
	if _, err := decodeBatches(good, 0, 10, Pointers{0, 2, 2}, false, nil); err != nil {
		t.Fatal(err)
	}
}

func TestIncrementSequence(t *testing.T) {
	t.Parallel()
	tests := []struct{ base, delta, want int32 }{
		{-1, 3, -1},
		{0, 0, 0},
		{5, 3, 8},
		{1<<31 - 1, 0, 1<<31 - 1},
		{1<<31 - 1, 1, 0},
		{1<<31 - 2, 3, 1},
	}
	for _, tt := range tests {
		if got := incrementSequence(tt.base, tt.delta); got != tt.want {
			t.Errorf("incrementSequence(%d, %d): got %d, want %d", tt.base, tt.delta, got, tt.want)
		}
	}
}

func TestReadLogCompactedRecordsAreGaps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const topic = "compacted"
	if err := e.cluster.CreateTopic(topic, 1, map[string]string{"cleanup.policy": "compact"}); err != nil {
		t.Fatal(err)
	}
	p, err := kgo.NewClient(kgo.SeedBrokers(e.seeds...), kgo.DefaultProduceTopic(topic))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, k := range []string{"a", "b", "b", "c", "b", "d"} {
		if err := p.ProduceSync(testCtx(t), &kgo.Record{Key: []byte(k), Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	e.cluster.Compact()
	log, err := e.ins.ReadLog(testCtx(t), topic, 0, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	// Compaction keeps the last record per key: 0 (a), 3 (c), 4 (b), 5 (d).
	if want := (Pointers{0, 6, 6}); log.Pointers != want {
		t.Errorf("pointers: got %+v, want %+v", log.Pointers, want)
	}
	checkEntries(t, log, 0, []want{dataNone, gapCompacted, gapCompacted, dataNone, dataNone, dataNone})
	recs, err := e.ins.ReadRecords(testCtx(t), topic, 0, ReadUncommitted, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := recordOffsets(recs), []int64{0, 3, 4, 5}; !equalOffsets(got, want) {
		t.Errorf("ReadRecords: got %v, want %v", got, want)
	}
}
