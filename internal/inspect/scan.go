package inspect

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// scanSink receives what a scanner finds, in offset order, each offset of
// the range exactly once.
type scanSink interface {
	// gap reports offsets [first, last] that no batch holds, all of
	// class why (classGapCompacted, classGapBeforeLogStart or
	// classGapUnknown; see GapCompacted for the rule).
	gap(first, last int64, why class)
	// data reports the part [lo, hi] of data batch b inside the range.
	// txn is TxnNone, TxnCommitted or TxnAborted, or TxnOpen when the
	// outcome waits for a marker of b.ProducerID (reported by resolve).
	// The sink accounts for the offsets of [lo, hi] up to the last record
	// there, as records or, between records when compaction thinned the
	// batch, as gaps; it returns the offsets of the batch's first and
	// last records in [lo, hi], or -1 when there are none. Offsets after
	// the last record are left to the next batch, or reported by gap, as
	// ReadLog leaves them.
	data(b *rawBatch, lo, hi int64, txn string) (first, last int64, err error)
	// control reports the control record at offset o; marker is "" for a
	// control type other than COMMIT and ABORT.
	control(b *rawBatch, o int64, marker string)
	// resolve settles every record of producer pid reported open so far:
	// TxnCommitted or TxnAborted when its marker was found, TxnOpen when
	// it stays open (its transaction is ongoing, or no marker was found
	// below the high watermark within the scan's budget).
	resolve(pid int64, txn string)
}

// scanner walks the record batches of one partition snapshot over the
// range [from, end) and reports them to a sink, resolving transaction
// outcomes exactly as ReadLog's window does: below the last stable offset
// from the aborted-transactions list of read_committed fetches; elsewhere
// by the first control batch of the record's producer after it, looked for
// past the range (batch headers only) once the range is done, after a
// DescribeProducers has settled the transactions that are still ongoing,
// for at most Inspector.ScanBudget bytes.
//
// Data batches are handed to the sink undecoded: counting their records
// needs only the header unless compaction removed some (see offsetsIn).
// Control batches, a few dozen bytes each, are decoded here.
//
// Memory: one fetch response (at most Inspector.FetchBytes, or one batch
// larger than that) and one entry per producer with an open record.
type scanner struct {
	ins  *Inspector
	ref  *partitionRef
	ptrs Pointers
	sink scanSink

	from, end int64           // the range; end only ever moves down (stopAt)
	next      int64           // every offset in [from, next) has been reported
	pending   map[int64]int64 // producer id -> its first record reported open

	// maxBytes caps the record-batch bytes fetched inside the range; 0
	// means no cap. Once spent the range ends at a fetch boundary
	// (stopAt), so that a caller can go on from there.
	maxBytes int64
	fetched  int64 // record-batch bytes fetched inside the range
	// progress, when set, is called after each fetch inside the range.
	progress func()

	ctx     context.Context // run's, to ask the topic's cleanup.policy
	compact *bool           // the topic's policy includes compact, once asked
}

func newScanner(ins *Inspector, ref *partitionRef, ptrs Pointers, from, end int64, sink scanSink) *scanner {
	return &scanner{
		ins: ins, ref: ref, ptrs: ptrs, sink: sink,
		from: from, end: max(from, end), next: from,
		pending: make(map[int64]int64),
	}
}

// full reports whether every offset of the range has been reported.
func (s *scanner) full() bool { return s.next >= s.end }

// done reports whether reading on can change nothing.
func (s *scanner) done() bool { return s.full() && len(s.pending) == 0 }

// stopAt ends the range at o when that is lower: offsets from o on are no
// longer reported, and producers whose first open record lies at or past o
// need no marker any more. A sink may call it from its methods.
func (s *scanner) stopAt(o int64) {
	if o >= s.end {
		return
	}
	s.end = max(o, s.from)
	for pid, first := range s.pending {
		if first >= s.end {
			delete(s.pending, pid)
		}
	}
}

// gapsTo reports the offsets from next up to o (within the range) as a gap
// of class why; a gap between batches (classGapBetween) is settled by the
// topic's cleanup.policy, asked once.
func (s *scanner) gapsTo(o int64, why class) {
	o = min(o, s.end)
	if s.next >= o {
		return
	}
	if why == classGapBetween {
		if s.compact == nil {
			compact := s.ins.compactedTopic(s.ctx, s.ref.topic)
			s.compact = &compact
		}
		why = settleBetween(why, *s.compact)
	}
	s.sink.gap(s.next, o-1, why)
	s.next = o
}

// run scans the range and resolves what it can. On return every offset of
// [from, end) has been reported and every producer reported open has been
// resolved. It fails with ctx's error when ctx ends.
func (s *scanner) run(ctx context.Context) error {
	s.ctx = ctx
	ptrs := s.ptrs
	offset := max(s.from, ptrs.LogStartOffset)
	s.gapsTo(offset, classGapBeforeLogStart)
	committed := offset < ptrs.LastStableOffset
	limit := s.ins.FetchBytes
	if limit <= 0 {
		limit = DefaultFetchBytes
	}
	fetchBytes := min(firstFetchBytes, limit)
	var scanned int64 // bytes fetched past the range
	described := false
	for !s.done() && offset < ptrs.HighWatermark {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("inspect: scan %s at offset %d: %w", s.ref, offset, err)
		}
		if !s.full() && s.maxBytes > 0 && s.fetched >= s.maxBytes {
			s.gapsTo(offset, classGapBetween)
			s.stopAt(s.next)
			continue
		}
		if s.full() && !described {
			described = true
			s.settleOngoing(ctx)
			continue
		}
		if s.full() && scanned >= s.ins.ScanBudget {
			break
		}
		committed = committed && offset < ptrs.LastStableOffset
		rp, err := s.ins.fetch(ctx, s.ref, offset, committed, fetchBytes)
		if errors.Is(err, kerr.OffsetOutOfRange) {
			// Records were deleted since the pointers were read.
			start, lerr := s.ins.listOffset(ctx, s.ref, -2, 0)
			if lerr != nil {
				return lerr
			}
			if start <= offset {
				return err
			}
			s.gapsTo(start, classGapBeforeLogStart)
			offset = start
			continue
		}
		if err != nil {
			return err
		}
		wasFull := s.full()
		next, batches, err := s.feed(rp.RecordBatches, offset, committed, rp.AbortedTransactions)
		if err != nil {
			return fmt.Errorf("inspect: fetch %s at offset %d: %w", s.ref, offset, err)
		}
		if wasFull {
			scanned += int64(len(rp.RecordBatches))
		} else {
			s.fetched += int64(len(rp.RecordBatches))
			if s.progress != nil {
				s.progress()
			}
		}
		switch {
		case batches > 0 && next > offset:
			offset = next
			fetchBytes = min(fetchBytes*2, max(limit, fetchBytes))
		case batches > 0:
			return fmt.Errorf("inspect: fetch %s at offset %d: %w: broker returned no batch at or after it", s.ref, offset, ErrCorruptBatch)
		case committed:
			committed = false // the last stable offset: read on uncommitted
		case len(rp.RecordBatches) > 0 && fetchBytes < maxFetchBytes:
			fetchBytes *= 2 // a batch larger than we asked for
		default:
			offset = ptrs.HighWatermark // nothing more below the high watermark
		}
	}
	s.gapsTo(s.end, classGapBetween)
	for pid := range s.pending {
		s.sink.resolve(pid, TxnOpen)
	}
	clear(s.pending)
	return nil
}

// settleOngoing stops looking for the markers of producers whose
// transaction, ongoing per DescribeProducers, began at or before their
// first open record (the rule of ReadLog's settleOngoing).
func (s *scanner) settleOngoing(ctx context.Context) {
	for pid, start := range s.ins.ongoingTransactions(ctx, s.ref) {
		if first, ok := s.pending[pid]; ok && start >= 0 && start <= first {
			delete(s.pending, pid)
			s.sink.resolve(pid, TxnOpen)
		}
	}
}

// feed walks raw, the RecordBatches of one fetch response, as window.feed
// does (see walkBatches).
func (s *scanner) feed(raw []byte, fetchFrom int64, committed bool, aborted []kmsg.FetchResponseTopicPartitionAbortedTransaction) (next int64, batches int, err error) {
	var abort aborter
	if committed {
		abort = newAborter(aborted)
	}
	return walkBatches(raw, fetchFrom, s.ptrs.HighWatermark, s.done, func(b *rawBatch) error {
		return s.addBatch(b, committed, abort)
	})
}

func (s *scanner) addBatch(b *rawBatch, committed bool, abort aborter) error {
	inRange := b.LastOffset >= s.next && b.BaseOffset < s.end
	if !b.control() {
		if !inRange {
			return nil // outside the range, a data batch decides nothing
		}
		txn := batchTxn(b, committed, abort, s.ptrs.LastStableOffset)
		lo, hi := max(b.BaseOffset, s.next), min(b.LastOffset, s.end-1)
		s.gapsTo(lo, classGapBetween)
		first, last, err := s.sink.data(b, lo, hi, txn)
		if err != nil {
			return err
		}
		if last >= 0 {
			s.next = last + 1
		}
		// The batch keeps its last offset when the cleaner removed its
		// last records (or all of them).
		s.gapsTo(hi+1, classGapCompacted)
		if _, waiting := s.pending[b.ProducerID]; txn == TxnOpen && first >= 0 && first < s.end && !waiting {
			s.pending[b.ProducerID] = first
		}
		return nil
	}
	_, waiting := s.pending[b.ProducerID]
	if !inRange && !waiting && !abort.aborts(b) {
		return nil
	}
	src, err := s.ins.codecs.Decompress(b.codec(), b.Records)
	if err != nil {
		return corruptBatch(b, err)
	}
	// The first record of a control batch is its marker, as Kafka's
	// consumer reads it.
	first := &recordReader{src: src}
	rec, err := first.next()
	if err != nil {
		return corruptBatch(b, err)
	}
	marker, txn := controlMarker(rec.Key)
	if txn != TxnNone && waiting {
		delete(s.pending, b.ProducerID)
		s.sink.resolve(b.ProducerID, txn)
	}
	if marker == MarkerAbort && abort.aborts(b) {
		abort.pop(b.ProducerID)
	}
	if !inRange {
		return nil
	}
	return recordsIn(s.ins.codecs, b, src, s.next, s.end-1, func(o int64, rec *rawRecord) bool {
		s.gapsTo(o, classGapBetween)
		m, _ := controlMarker(rec.Key)
		s.sink.control(b, o, m)
		s.next = o + 1
		return true
	})
}

// fullBatch reports whether every offset of data batch b holds a record:
// a batch holds NumRecords records with strictly increasing offset deltas
// up to its last offset delta, so when the counts agree there are no holes.
// Compaction (and Kafka's cleaner removing aborted records) leaves batches
// with fewer records than offsets.
func fullBatch(b *rawBatch) bool {
	return int64(b.NumRecords) == b.LastOffset-b.BaseOffset+1
}

// offsetsIn calls fn with the offset of every record of batch b in
// [lo, hi], in order. It decompresses b and reads each record's framing
// (length, attributes, timestamp and offset deltas) only, skipping keys,
// values and headers.
func offsetsIn(c *codecs, b *rawBatch, lo, hi int64, fn func(o int64)) error {
	src, err := c.Decompress(b.codec(), b.Records)
	if err != nil {
		return corruptBatch(b, err)
	}
	r := &recordReader{src: src}
	prev := b.BaseOffset - 1
	for range b.NumRecords {
		delta, err := r.nextOffsetDelta()
		if err != nil {
			return corruptBatch(b, err)
		}
		o := b.BaseOffset + int64(delta)
		if o <= prev || o > b.LastOffset {
			return corruptBatch(b, fmt.Errorf("record offset delta %d out of order", delta))
		}
		prev = o
		if o > hi {
			break
		}
		if o >= lo {
			fn(o)
		}
	}
	return nil
}

// recordsIn calls fn with every record of batch b whose offset is in
// [lo, hi], in order, decoded from src (b's records, decompressed) or,
// when src is nil, decompressed with c; it stops early when fn returns
// false. A record out of order (offsets rise within a batch, up to its
// last offset) is ErrCorruptBatch, as a record that does not decode is.
func recordsIn(c *codecs, b *rawBatch, src []byte, lo, hi int64, fn func(o int64, rec *rawRecord) bool) error {
	if src == nil {
		var err error
		if src, err = c.Decompress(b.codec(), b.Records); err != nil {
			return corruptBatch(b, err)
		}
	}
	r := &recordReader{src: src}
	prev := b.BaseOffset - 1
	for range b.NumRecords {
		rec, err := r.next()
		if err != nil {
			return corruptBatch(b, err)
		}
		o := b.BaseOffset + int64(rec.OffsetDelta)
		if o <= prev || o > b.LastOffset {
			return corruptBatch(b, fmt.Errorf("record offset delta %d out of order", rec.OffsetDelta))
		}
		prev = o
		if o > hi {
			break
		}
		if o >= lo && !fn(o, &rec) {
			break
		}
	}
	return nil
}

// nextOffsetDelta reads the next record's offset delta and skips the rest
// of the record.
func (r *recordReader) nextOffsetDelta() (int32, error) {
	length := r.varint()
	if r.err != nil {
		return 0, r.err
	}
	if length < 1 || int(length) > len(r.src) {
		return 0, fmt.Errorf("record of length %d with %d bytes left", length, len(r.src))
	}
	body := &recordReader{src: r.src[1:length]} // after the attributes
	r.src = r.src[length:]
	body.varlong() // timestamp delta
	delta := body.varint()
	return delta, body.err
}

// class is what one offset is, in the partition map's terms.
type class uint8

const (
	classPlain class = iota
	classCommitted
	classAborted
	classOpen
	classCommitMarker
	classAbortMarker
	classOtherControl
	classGapCompacted      // inside a batch's range, or between batches of a compacted topic
	classGapBeforeLogStart // below the log start offset
	classGapUnknown        // between batches of a topic not compacted
	classGapBetween        // between batches, until the topic's policy says which
)

// dataClass is the class of a data record with outcome txn.
func dataClass(txn string) class {
	switch txn {
	case TxnCommitted:
		return classCommitted
	case TxnAborted:
		return classAborted
	case TxnOpen:
		return classOpen
	}
	return classPlain
}

// markerClass is the class of a control record with marker m.
func markerClass(m string) class {
	switch m {
	case MarkerCommit:
		return classCommitMarker
	case MarkerAbort:
		return classAbortMarker
	}
	return classOtherControl
}

// runSink receives a scan as runs of offsets of one class.
type runSink interface {
	// run reports offsets [first, last], all of class c. For classOpen,
	// pid is the producer whose marker decides them (see resolve).
	run(first, last int64, c class, pid int64)
	// resolve is scanSink.resolve.
	resolve(pid int64, txn string)
}

// runs adapts a runSink to a scanSink. A data batch whose records fill its
// offsets is one run, counted from its header alone; a thinned one is
// decompressed for its records' offsets (offsetsIn).
type runs struct {
	sink   runSink
	codecs *codecs
	writes *writeTally // when set, told of every batch: who wrote, and when
}

func (r runs) gap(first, last int64, why class) { r.sink.run(first, last, why, -1) }

func (r runs) control(b *rawBatch, o int64, marker string) {
	r.writes.note(b, o)
	r.sink.run(o, o, markerClass(marker), -1)
}

func (r runs) resolve(pid int64, txn string) { r.sink.resolve(pid, txn) }

func (r runs) data(b *rawBatch, lo, hi int64, txn string) (first, last int64, err error) {
	c := dataClass(txn)
	r.writes.note(b, lo)
	if fullBatch(b) {
		r.sink.run(lo, hi, c, b.ProducerID)
		return lo, hi, nil
	}
	first, last = -1, -1
	err = offsetsIn(r.codecs, b, lo, hi, func(o int64) {
		if first < 0 {
			first = o
		}
		if next := max(last+1, lo); o > next {
			r.sink.run(next, o-1, classGapCompacted, -1) // a hole inside the batch
		}
		r.sink.run(o, o, c, b.ProducerID)
		last = o
	})
	if err != nil {
		return -1, -1, err
	}
	return first, last, nil
}
