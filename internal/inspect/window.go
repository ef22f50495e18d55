package inspect

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// window turns the record batches of a partition, fed in offset order,
// into one Entry per offset of [from, end), and resolves the transaction
// outcome of every transactional record in it.
//
// Outcomes come from two sources, as a consumer's would:
//   - below the last stable offset, a read_committed fetch carries the
//     aborted transactions overlapping what it returned; a transactional
//     batch there is aborted if the list says so and committed otherwise
//     (Kafka's and franz-go's consumer algorithm);
//   - elsewhere, a record stays pending until the first control batch of
//     its producer after it: COMMIT or ABORT decides. Batches past the
//     window are still fed for that purpose; only their headers are read,
//     and only control batches of pending producers are decoded.
//
// Memory is bounded by the window: the entries, and the pending indexes
// per producer. The entries are bounded by their decoded size too
// (budget): when the next record would pass it, the window ends before
// that record (cut).
type window struct {
	from, end int64
	ptrs      Pointers
	codecs    *codecs
	values    ValueDecoder // nil: framed values stay bytes only
	budget    answerBudget
	cut       bool // the budget ended the window at end

	entries []Entry
	next    int64             // every offset in [from, next) has an entry
	pending map[int64][]int32 // producer id -> entries awaiting a marker
}

// newWindow is a window of [from, end) holding at most maxBytes of
// entries (DefaultAnswerBytes when 0).
func newWindow(from, end int64, ptrs Pointers, c *codecs, maxBytes int64) *window {
	return &window{
		from:    from,
		end:     end,
		ptrs:    ptrs,
		codecs:  c,
		budget:  newAnswerBudget(maxBytes),
		entries: make([]Entry, 0, end-from),
		next:    from,
		pending: make(map[int64][]int32),
	}
}

// full reports whether every offset of the window has an entry.
func (w *window) full() bool { return w.next >= w.end }

// resolved reports whether no record waits for its marker.
func (w *window) resolved() bool { return len(w.pending) == 0 }

// done reports whether feeding more batches can change nothing.
func (w *window) done() bool { return w.full() && w.resolved() }

// gapsTo records every offset below o (within the window) not yet seen as
// a gap, for reason why.
func (w *window) gapsTo(o int64, why string) {
	o = min(o, w.end)
	for ; w.next < o; w.next++ {
		w.entries = append(w.entries, gapEntry(w.next, why))
		// Gaps are counted, never refused: MaxLimit of them fit in
		// a few MiB.
		w.budget.used += entryOverhead
	}
}

// settleOpen stops waiting for a marker of producer pid when its ongoing
// transaction started at txnStart, at or before its first pending record:
// those records stay open.
func (w *window) settleOpen(pid, txnStart int64) {
	pending := w.pending[pid]
	if txnStart >= 0 && len(pending) > 0 && txnStart <= w.entries[pending[0]].Offset {
		delete(w.pending, pid)
	}
}

// aborter is the aborted-transaction list of one read_committed fetch
// response: per producer, the first offsets of its aborted transactions,
// ascending. It mirrors franz-go's consumer.
type aborter map[int64][]int64

func newAborter(list []kmsg.FetchResponseTopicPartitionAbortedTransaction) aborter {
	a := make(aborter, len(list))
	for _, t := range list {
		a[t.ProducerID] = append(a[t.ProducerID], t.FirstOffset)
	}
	for pid := range a {
		slices.Sort(a[pid])
	}
	return a
}

func (a aborter) aborts(b *rawBatch) bool {
	firsts := a[b.ProducerID]
	return b.transactional() && len(firsts) > 0 && b.BaseOffset >= firsts[0]
}

func (a aborter) pop(pid int64) {
	if firsts := a[pid]; len(firsts) > 1 {
		a[pid] = firsts[1:]
	} else {
		delete(a, pid)
	}
}

// feed decodes raw, the RecordBatches of one fetch response. committed says
// whether the fetch was read_committed, in which case aborted is its list of
// aborted transactions. It returns what walkBatches returns; feeding stops
// early once the window is done.
func (w *window) feed(raw []byte, fetchFrom int64, committed bool, aborted []kmsg.FetchResponseTopicPartitionAbortedTransaction) (next int64, batches int, err error) {
	var abort aborter
	if committed {
		abort = newAborter(aborted)
	}
	return walkBatches(raw, fetchFrom, w.ptrs.HighWatermark, w.done, func(b *rawBatch) error {
		return w.addBatch(b, committed, abort)
	})
}

// walkBatches walks raw, the RecordBatches of one fetch response, handing
// add each complete v2 batch written before hw until done says enough. It
// returns the offset after the last complete batch it considered (where
// the next fetch starts; fetchFrom when it considered none) and how many
// complete batches that was. A truncated batch at the end of raw is
// ignored; a batch at or past hw was written after the pointers were read
// and ends the walk there; a legacy message set's offsets stay gaps.
func walkBatches(raw []byte, fetchFrom, hw int64, done func() bool, add func(*rawBatch) error) (next int64, batches int, err error) {
	next = fetchFrom
	for len(raw) > 0 && !done() {
		b, rest, complete, err := splitBatch(raw)
		if err != nil {
			return next, batches, err
		}
		if !complete {
			break
		}
		raw = rest
		batches++
		next = max(next, b.LastOffset+1)
		if b.BaseOffset >= hw {
			next = hw
			break
		}
		if b.Magic != 2 {
			continue
		}
		if err := add(&b); err != nil {
			return next, batches, err
		}
	}
	return next, batches, nil
}

func (w *window) addBatch(b *rawBatch, committed bool, abort aborter) error {
	inWindow := b.LastOffset >= w.next && b.BaseOffset < w.end
	if !b.control() {
		if !inWindow {
			return nil // past the window, a data batch decides nothing
		}
		return w.addRecords(b, w.dataTxn(b, committed, abort))
	}
	if !inWindow && len(w.pending[b.ProducerID]) == 0 && !abort.aborts(b) {
		return nil
	}
	records, err := w.records(b)
	if err != nil {
		return err
	}
	rec, err := records.next()
	if err != nil {
		return w.corrupt(b, err)
	}
	marker, txn := controlMarker(rec.Key)
	// The first record of a control batch is its marker, as Kafka's
	// consumer reads it.
	if txn != TxnNone {
		for _, idx := range w.pending[b.ProducerID] {
			w.entries[idx].Txn = txn
		}
		delete(w.pending, b.ProducerID)
	}
	if marker == MarkerAbort && abort.aborts(b) {
		abort.pop(b.ProducerID)
	}
	if !inWindow {
		return nil
	}
	return w.addRecords(b, "")
}

// dataTxn is the outcome a data batch's records start with.
func (w *window) dataTxn(b *rawBatch, committed bool, abort aborter) string {
	return batchTxn(b, committed, abort, w.ptrs.LastStableOffset)
}

// batchTxn is the outcome the records of data batch b start with, read by
// a fetch that was read_committed (with its aborted transactions abort) or
// not, given the snapshot's last stable offset lso.
func batchTxn(b *rawBatch, committed bool, abort aborter, lso int64) string {
	switch {
	case !b.transactional():
		return TxnNone
	case committed && b.BaseOffset < lso && abort.aborts(b):
		return TxnAborted
	case committed && b.BaseOffset < lso:
		return TxnCommitted
	}
	return TxnOpen // until a marker says otherwise
}

// controlMarker reads a control record key: version int16, type int16.
func controlMarker(key []byte) (marker, txn string) {
	if len(key) < 4 {
		return "", TxnNone
	}
	switch int16(binary.BigEndian.Uint16(key[2:])) {
	case 0:
		return MarkerAbort, TxnAborted
	case 1:
		return MarkerCommit, TxnCommitted
	}
	return "", TxnNone
}

func (w *window) records(b *rawBatch) (*recordReader, error) {
	src, err := w.codecs.Decompress(b.codec(), b.Records)
	if err != nil {
		return nil, w.corrupt(b, err)
	}
	return &recordReader{src: src}, nil
}

func (w *window) corrupt(b *rawBatch, err error) error { return corruptBatch(b, err) }

// corruptBatch wraps a decoding error of batch b in ErrCorruptBatch.
func corruptBatch(b *rawBatch, err error) error {
	return fmt.Errorf("%w at offset %d (%s): %w", ErrCorruptBatch, b.BaseOffset, b.compression(), err)
}

// addRecords appends an entry for every record of b inside the window.
// txn is the outcome of data records; "" marks a control batch.
func (w *window) addRecords(b *rawBatch, txn string) error {
	w.gapsTo(b.BaseOffset, gapBetween)
	err := recordsIn(w.codecs, b, nil, w.next, w.end-1, func(o int64, rec *rawRecord) bool {
		w.gapsTo(o, GapCompacted) // a hole inside the batch's range
		e := recordEntry(b, rec, o, txn)
		decodeValue(w.values, &e, rec.Value)
		if !w.budget.take(EncodedSize(&e)) {
			w.end, w.cut = o, true
			return false
		}
		w.entries = append(w.entries, e)
		w.next = o + 1
		if txn == TxnOpen {
			w.pending[b.ProducerID] = append(w.pending[b.ProducerID], int32(len(w.entries)-1))
		}
		return true
	})
	if err != nil {
		return err
	}
	// The batch keeps its last offset when the cleaner removed its last
	// records (or all of them).
	w.gapsTo(b.LastOffset+1, GapCompacted)
	return nil
}

// recordEntry is the Entry of record rec of batch b at offset o. txn is the
// outcome of a data record; "" marks a control record.
func recordEntry(b *rawBatch, rec *rawRecord, o int64, txn string) Entry {
	e := Entry{
		Offset:          o,
		Kind:            KindData,
		Txn:             txn,
		ProducerID:      b.ProducerID,
		ProducerEpoch:   b.ProducerEpoch,
		Sequence:        incrementSequence(b.BaseSequence, rec.OffsetDelta),
		BatchBaseOffset: b.BaseOffset,
		BatchLastOffset: b.LastOffset,
		Transactional:   b.transactional(),
		Control:         b.control(),
		Compression:     b.compression(),
		Headers:         []Header{},
	}
	ts := b.FirstTimestamp + rec.TimestampDelta
	if b.Attributes&attrLogAppendTime != 0 {
		ts = b.MaxTimestamp
	}
	if ts >= 0 && ts <= maxTimestamp {
		e.Timestamp = time.UnixMilli(ts).UTC()
	}
	if e.Control {
		e.Kind = KindControl
		e.Marker, e.Txn = controlMarker(rec.Key)
	}
	e.Key, e.KeyEncoding, e.KeyTruncated = encodeBytes(rec.Key, MaxValueBytes)
	e.Value, e.ValueEncoding, e.ValueTruncated = encodeBytes(rec.Value, MaxValueBytes)
	if len(rec.Headers) > 0 {
		e.Headers = make([]Header, len(rec.Headers))
		for i, h := range rec.Headers {
			e.Headers[i].Key, e.Headers[i].KeyTruncated = cutText(h.Key, MaxHeaderKeyBytes)
			v, enc, cut := encodeBytes(h.Value, MaxValueBytes)
			if v == nil {
				v, enc = new(string), EncodingNull
			}
			e.Headers[i].Value, e.Headers[i].ValueEncoding, e.Headers[i].ValueTruncated = *v, enc, cut
		}
	}
	if rec.HeaderCount > len(rec.Headers) {
		e.HeadersTruncated, e.HeaderCount = true, rec.HeaderCount
	}
	return e
}

// maxTimestamp is the last millisecond of year 9999, past which a time
// cannot be written as RFC 3339.
const maxTimestamp = 253402300799999

// finish fills the offsets no batch held with gaps and computes what each
// isolation level delivers, given the snapshot's pointers.
func (w *window) finish() []Entry {
	w.gapsTo(w.end, gapBetween)
	for i := range w.entries {
		setDelivery(&w.entries[i], w.ptrs)
	}
	MarkDuplicates(w.entries)
	return w.entries
}

// setDelivery computes whether each isolation level delivers e, given the
// pointers of the snapshot it belongs to.
func setDelivery(e *Entry, ptrs Pointers) {
	if e.Kind != KindData {
		return // control records and gaps reach no consumer
	}
	e.ReadUncommitted = e.Offset < ptrs.HighWatermark
	switch e.Txn {
	case TxnNone, TxnCommitted:
		e.ReadCommitted = e.Offset < ptrs.LastStableOffset
	}
}
