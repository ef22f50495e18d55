package inspect

import (
	"context"
	"fmt"
	"math/bits"
	"strconv"
	"time"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// Bucket counts of a partition map.
const (
	// DefaultBuckets is the number of buckets when a MapRequest asks for 0.
	DefaultBuckets = 100
	// MaxBuckets caps the buckets of one map, so that its memory and its
	// JSON stay small (about 100 bytes a bucket).
	MaxBuckets = 10_000
)

// progressEvery is how often, at most, a scan reports progress.
const progressEvery = 100 * time.Millisecond

// MapBucket counts what the offsets [From, To) of a partition are, with
// ReadLog's classification, offset by offset: every offset is counted in
// exactly one field, so the fields add up to To - From.
type MapBucket struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// Plain counts data records written outside transactions (Entry.Txn
	// "none").
	Plain int64 `json:"plain"`
	// Committed, Aborted and Open count transactional data records by
	// outcome.
	Committed int64 `json:"committed"`
	Aborted   int64 `json:"aborted"`
	Open      int64 `json:"open"`
	// CommitMarkers and AbortMarkers count control records (transaction
	// markers) by type.
	CommitMarkers int64 `json:"commitMarkers"`
	AbortMarkers  int64 `json:"abortMarkers"`
	// OtherControl counts control records of any other type (none appear
	// in the topics of Kafka 4.3.1 clients; kept so the counts add up).
	OtherControl int64 `json:"otherControl,omitempty"`
	// Gaps counts offsets no batch holds: below the log start offset,
	// removed by compaction, in a legacy (magic 0/1) message set. The
	// three fields after it split it by reason (Entry.Reason), so that
	// they add up to Gaps.
	Gaps int64 `json:"gaps"`
	// GapsCompacted counts the gaps the log cleaner left: inside a
	// batch's offset range, or between batches of a compacted topic.
	GapsCompacted int64 `json:"gapsCompacted"`
	// GapsBeforeLogStart counts the offsets below the log start offset:
	// deleted by retention or DeleteRecords.
	GapsBeforeLogStart int64 `json:"gapsBeforeLogStart"`
	// GapsUnknown counts the other gaps: between batches of a topic that
	// is not compacted.
	GapsUnknown int64 `json:"gapsUnknown"`
}

// add counts n offsets of class c.
func (b *MapBucket) add(c class, n int64) {
	switch c {
	case classPlain:
		b.Plain += n
	case classCommitted:
		b.Committed += n
	case classAborted:
		b.Aborted += n
	case classOpen:
		b.Open += n
	case classCommitMarker:
		b.CommitMarkers += n
	case classAbortMarker:
		b.AbortMarkers += n
	case classOtherControl:
		b.OtherControl += n
	case classGapCompacted:
		b.Gaps += n
		b.GapsCompacted += n
	case classGapBeforeLogStart:
		b.Gaps += n
		b.GapsBeforeLogStart += n
	case classGapUnknown, classGapBetween:
		b.Gaps += n
		b.GapsUnknown += n
	}
}

// Records returns the data records counted in the bucket.
func (b *MapBucket) Records() int64 { return b.Plain + b.Committed + b.Aborted + b.Open }

// PartitionMap summarises [From, To) of a partition as equal offset
// ranges, with the partition's pointers as they were when the map was read.
type PartitionMap struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	From      int64  `json:"from"`
	To        int64  `json:"to"`
	Pointers
	Buckets []MapBucket `json:"buckets"`
	// Producers are the producers that wrote in [From, To), in the order
	// of their first offset there (at most MaxWriters; ProducersCut says
	// more wrote); FirstWrite and LastWrite the earliest and latest batch
	// timestamps there (zero, and left out, when nothing was written).
	Producers    []ProducerWrite `json:"producers"`
	ProducersCut bool            `json:"producersCut,omitempty"`
	FirstWrite   time.Time       `json:"firstWrite,omitzero"`
	LastWrite    time.Time       `json:"lastWrite,omitzero"`
}

// Total adds up every bucket.
func (m *PartitionMap) Total() MapBucket {
	t := MapBucket{From: m.From, To: m.To}
	for _, b := range m.Buckets {
		t.Plain += b.Plain
		t.Committed += b.Committed
		t.Aborted += b.Aborted
		t.Open += b.Open
		t.CommitMarkers += b.CommitMarkers
		t.AbortMarkers += b.AbortMarkers
		t.OtherControl += b.OtherControl
		t.Gaps += b.Gaps
		t.GapsCompacted += b.GapsCompacted
		t.GapsBeforeLogStart += b.GapsBeforeLogStart
		t.GapsUnknown += b.GapsUnknown
	}
	return t
}

// MapRequest says which part of a partition to map, and how finely. 0 is
// an offset: ask From -1 and To -1 for the whole partition.
type MapRequest struct {
	// From is the first offset; negative means the log start offset.
	// Offsets below the log start offset are gaps.
	From int64
	// To is the offset after the last; negative means the high
	// watermark, and a larger one is lowered to it.
	To int64
	// Buckets is how many equal offset ranges divide [From, To): 0 means
	// DefaultBuckets, more than MaxBuckets (or negative) is
	// ErrInvalidRange. A range of fewer offsets gets one bucket an offset.
	Buckets int
	// Progress, when set, receives partial maps while the scan runs (see
	// MapProgress), at most every 100 ms, on the scanning goroutine: a
	// slow callback slows the scan.
	Progress func(MapProgress)
}

// MapProgress is a partial partition map. Every offset in
// [Map.From, ScannedTo) has been counted; records whose transaction is not
// resolved yet are counted as open and move to committed or aborted when
// their marker is found, so an earlier bucket can still change. Map and its
// buckets belong to the scan: read them during the callback only (copy
// what must outlive it).
type MapProgress struct {
	ScannedTo int64         `json:"scannedTo"`
	Map       *PartitionMap `json:"map"`
}

// MapPartition counts, for req.Buckets equal offset ranges of [req.From,
// req.To), the plain, committed, aborted and open data records, the COMMIT
// and ABORT markers and the gaps — the classification ReadLog gives offset
// by offset, from the same sources (aborted-transaction lists below the last
// stable offset, markers, DescribeProducers, the forward scan bounded by
// ScanBudget).
//
// It reads batch headers only: a data batch is counted from its offset
// span without being decompressed, unless compaction left it holding fewer
// records than offsets (NumRecords below its span), in which case it is
// decompressed and only its records' offset deltas are read; control
// batches (a few dozen bytes) are decoded.
//
// Cost: one metadata request, three ListOffsets, fetches covering the range
// once (up to FetchBytes each), then, if transactions in the range are
// still unresolved at its end, one DescribeProducers and at most ScanBudget
// bytes read past it. Memory: one fetch, the buckets, and per producer with
// an open transaction one counter per bucket its open records fall in —
// never the partition. It honours ctx: a cancelled map returns ctx's error.
// Errors wrap ErrInvalidRange, ErrUnknownTopic, ErrUnknownPartition,
// ErrBrokerUnavailable or ErrCorruptBatch where they apply.
func (i *Inspector) MapPartition(ctx context.Context, topic string, partition int32, req MapRequest) (*PartitionMap, error) {
	n := req.Buckets
	if n == 0 {
		n = DefaultBuckets
	}
	if n < 0 || n > MaxBuckets {
		return nil, problem.Wrap(ErrInvalidRange, problem.Invalid, "error.bucketsRange", "n", strconv.Itoa(req.Buckets), "max", strconv.Itoa(MaxBuckets))
	}
	ref, ptrs, from, to, err := i.locateRange(ctx, topic, partition, req.From, req.To)
	if err != nil {
		return nil, err
	}
	m := newMapSink(topic, partition, ptrs, from, to, n)
	tally := newWriteTally()
	s := newScanner(i, &ref, ptrs, from, to, runs{sink: m, codecs: i.codecs, writes: tally})
	if req.Progress != nil {
		var last time.Time // the first fetch reports at once
		s.progress = func() {
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				req.Progress(MapProgress{ScannedTo: min(s.next, to), Map: m.pm})
			}
		}
	}
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	m.pm.Producers, m.pm.ProducersCut, m.pm.FirstWrite, m.pm.LastWrite = tally.order, tally.cut, tally.first, tally.last
	if m.pm.Producers == nil {
		m.pm.Producers = []ProducerWrite{}
	}
	return m.pm, nil
}

// RecordLagBudget bounds the bytes RecordLag reads.
const RecordLagBudget = 256 << 20

// RecordLag returns how many records a read_committed consumer positioned
// at offset committed would still receive below the partition's last stable
// offset: the plain and committed data records in [committed, LSO). Markers,
// aborted records and gaps are not counted, which is why it can be lower
// than the offset lag (high watermark - committed): a trailing COMMIT
// marker makes the offset lag 1 and the record lag 0.
//
// Below the last stable offset every outcome is known from the fetches'
// aborted-transaction lists, so it is one pass over batch headers (see
// MapPartition) with nothing to resolve. It reads at most RecordLagBudget
// bytes and fails beyond that rather than grow without bound. A committed
// offset below the log start counts from the log start.
func (i *Inspector) RecordLag(ctx context.Context, topic string, partition int32, committed int64) (int64, error) {
	ref, ptrs, err := i.locatePointers(ctx, topic, partition)
	if err != nil {
		return 0, err
	}
	from, to := max(committed, ptrs.LogStartOffset), ptrs.LastStableOffset
	if from >= to {
		return 0, nil
	}
	m := newMapSink(topic, partition, ptrs, from, to, 1)
	s := newScanner(i, &ref, ptrs, from, to, runs{sink: m, codecs: i.codecs})
	s.maxBytes = RecordLagBudget
	if err := s.run(ctx); err != nil {
		return 0, err
	}
	if s.end < to {
		return 0, fmt.Errorf("inspect: record lag %s from %d: more than %d MiB to read up to the last stable offset %d", ref, committed, RecordLagBudget>>20, to)
	}
	t := m.pm.Total()
	return t.Plain + t.Committed, nil
}

// mapSink counts runs into buckets. Runs of open records are also kept per
// producer and bucket, to move them when the producer's marker is found.
type mapSink struct {
	pm      *PartitionMap
	from    int64
	span    uint64
	open    map[int64][]openRun
	buckets []MapBucket
}

// openRun is n open records of one producer in bucket k.
type openRun struct {
	k int
	n int64
}

func newMapSink(topic string, partition int32, ptrs Pointers, from, to int64, n int) *mapSink {
	span := to - from
	n = int(min(int64(n), span))
	m := &mapSink{
		pm:   &PartitionMap{Topic: topic, Partition: partition, From: from, To: to, Pointers: ptrs, Buckets: make([]MapBucket, n)},
		from: from, span: uint64(span),
		open: make(map[int64][]openRun),
	}
	m.buckets = m.pm.Buckets
	for k := range m.buckets {
		m.buckets[k].From = m.bound(k)
		m.buckets[k].To = m.bound(k + 1)
	}
	return m
}

// bound is the first offset of bucket k: from + floor(k*span/n), in 128-bit
// arithmetic so that no range overflows.
func (m *mapSink) bound(k int) int64 {
	hi, lo := bits.Mul64(uint64(k), m.span)
	q, _ := bits.Div64(hi, lo, uint64(len(m.buckets)))
	return m.from + int64(q)
}

// bucketOf is the bucket holding offset o: the largest k with bound(k) <= o,
// that is floor(((o-from+1)*n - 1) / span).
func (m *mapSink) bucketOf(o int64) int {
	hi, lo := bits.Mul64(uint64(o-m.from)+1, uint64(len(m.buckets)))
	lo, borrow := bits.Sub64(lo, 1, 0)
	q, _ := bits.Div64(hi-borrow, lo, m.span)
	return int(q)
}

func (m *mapSink) run(first, last int64, c class, pid int64) {
	for k := m.bucketOf(first); first <= last; k++ {
		end := min(last, m.buckets[k].To-1)
		n := end - first + 1
		m.buckets[k].add(c, n)
		if c == classOpen {
			runs := m.open[pid]
			if l := len(runs) - 1; l >= 0 && runs[l].k == k {
				runs[l].n += n
			} else {
				m.open[pid] = append(runs, openRun{k, n})
			}
		}
		first = end + 1
	}
}

func (m *mapSink) resolve(pid int64, txn string) {
	runs := m.open[pid]
	delete(m.open, pid)
	if txn == TxnOpen {
		return
	}
	c := dataClass(txn)
	for _, r := range runs {
		m.buckets[r.k].Open -= r.n
		m.buckets[r.k].add(c, r.n)
	}
}
