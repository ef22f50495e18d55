package inspect

import (
	"context"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// JumpKind names what Jump looks for; the names match MapBucket's fields,
// except JumpTombstone, which the map does not count.
type JumpKind string

// Kinds of offset Jump finds.
const (
	JumpPlain        JumpKind = "plain"
	JumpCommitted    JumpKind = "committed"
	JumpAborted      JumpKind = "aborted"
	JumpOpen         JumpKind = "open"
	JumpMarker       JumpKind = "marker" // a COMMIT or an ABORT marker
	JumpCommitMarker JumpKind = "commitMarker"
	JumpAbortMarker  JumpKind = "abortMarker"
	JumpGap          JumpKind = "gap" // a gap of any reason
	// A gap of one reason (Entry.Reason).
	JumpGapCompacted      JumpKind = "gapCompacted"
	JumpGapBeforeLogStart JumpKind = "gapBeforeLogStart"
	JumpGapUnknown        JumpKind = "gapUnknown"
	// A tombstone: a data record with a key and a null value, which
	// deletes its key on a compacted topic (the page's cells name it so).
	// Whatever its transaction's outcome: a tombstone of an aborted or
	// open transaction is still a record with a null value in the log, and
	// a read_uncommitted consumer receives it; read_committed consumers and
	// the log cleaner skip an aborted one. Its cell shows the outcome.
	// Control records are never tombstones.
	JumpTombstone JumpKind = "tombstone"
)

// matches reports whether an offset of class c is of kind k. A class
// never makes a tombstone: that takes the record (tombstones.data).
func (k JumpKind) matches(c class) bool {
	switch k {
	case JumpPlain:
		return c == classPlain
	case JumpCommitted:
		return c == classCommitted
	case JumpAborted:
		return c == classAborted
	case JumpOpen:
		return c == classOpen
	case JumpMarker:
		return c == classCommitMarker || c == classAbortMarker
	case JumpCommitMarker:
		return c == classCommitMarker
	case JumpAbortMarker:
		return c == classAbortMarker
	case JumpGap:
		return c.isGap()
	case JumpGapCompacted:
		return c == classGapCompacted
	case JumpGapBeforeLogStart:
		return c == classGapBeforeLogStart
	case JumpGapUnknown:
		return c == classGapUnknown
	}
	return false
}

// pendingKind reports whether records still waiting for their marker may
// turn out to be of kind k.
func (k JumpKind) pendingKind() bool {
	return k == JumpCommitted || k == JumpAborted || k == JumpOpen
}

// Valid reports whether k is one of the kinds above.
func (k JumpKind) Valid() bool {
	switch k {
	case JumpPlain, JumpCommitted, JumpAborted, JumpOpen, JumpMarker, JumpCommitMarker, JumpAbortMarker,
		JumpGap, JumpGapCompacted, JumpGapBeforeLogStart, JumpGapUnknown, JumpTombstone:
		return true
	}
	return false
}

// Scan budgets of Jump.
const (
	// DefaultJumpBytes is how many record-batch bytes one Jump reads
	// when the request does not say.
	DefaultJumpBytes = 64 << 20
	// MaxJumpBytes caps what a request may ask for.
	MaxJumpBytes = 512 << 20
)

// JumpRequest asks for the first (or, Backward, the last) offset of a kind
// in [From, To). For "next after offset x" ask From x+1; for "previous
// before x" ask To x with Backward.
type JumpRequest struct {
	Kind JumpKind
	// From and To bound the search as in MapRequest: negative From is
	// the log start offset, negative To the high watermark.
	From, To int64
	// Backward looks for the last offset of the kind instead of the first.
	Backward bool
	// MaxBytes caps the record-batch bytes read (0: DefaultJumpBytes; at
	// most MaxJumpBytes); backward, the first chunk is read whole whatever
	// it costs. When it runs out first, the answer says where to go on
	// (Next).
	MaxBytes int64
}

// JumpResult is where Jump found the offset, if it did.
type JumpResult struct {
	Kind JumpKind `json:"kind"`
	// Offset is the offset found, or null when [ScannedFrom, ScannedTo)
	// holds none.
	Offset *int64 `json:"offset"`
	// ScannedFrom and ScannedTo are the part of the range searched.
	ScannedFrom int64 `json:"scannedFrom"`
	ScannedTo   int64 `json:"scannedTo"`
	// Next, when the budget ran out before the range was searched and no
	// offset was found, is where to go on: the From of the next forward
	// request, or the To of the next backward one. It is null otherwise.
	Next *int64 `json:"next"`
	Pointers
}

// Jump finds the first offset of kind req.Kind in [req.From, req.To), or
// the last with req.Backward, classified exactly as ReadLog and
// MapPartition classify offsets (an open record is one whose marker is not
// found within ScanBudget past the range, as ReadLog says).
//
// Forward, it scans from From and stops at the first offset of the kind,
// reading on past it only to resolve earlier records still waiting for
// their marker; it reads at most req.MaxBytes of the range. Backward, it
// scans chunks of the range ending at To, each twice as long as the last
// (1,024 offsets first) but no longer than the budget left affords, until
// a chunk holds the kind; a chunk is read whole, so a call reads at least
// one. Either way it reads batch headers only (as MapPartition does), plus
// at most ScanBudget bytes past the range (a chunk) to resolve
// transactions; memory is one fetch. JumpTombstone alone needs the records
// themselves: it decompresses and decodes every data batch of the range
// as ReadLog does, one batch at a time, within the same byte budget, and
// memory is still one fetch and one decompressed batch. It honours ctx.
// Errors wrap ErrInvalidQuery (an unknown kind), ErrInvalidRange,
// ErrUnknownTopic, ErrUnknownPartition, ErrBrokerUnavailable or
// ErrCorruptBatch.
func (i *Inspector) Jump(ctx context.Context, topic string, partition int32, req JumpRequest) (*JumpResult, error) {
	if !req.Kind.Valid() {
		return nil, problem.Wrap(ErrInvalidQuery, problem.Invalid, "error.jumpKindUnknown", "kind", string(req.Kind))
	}
	budget := bounded(req.MaxBytes, DefaultJumpBytes, MaxJumpBytes)
	ref, ptrs, from, to, err := i.locateRange(ctx, topic, partition, req.From, req.To)
	if err != nil {
		return nil, err
	}
	res := &JumpResult{Kind: req.Kind, ScannedFrom: from, ScannedTo: from, Pointers: ptrs}
	if !req.Backward {
		j := &jumpSink{kind: req.Kind, best: -1, pendingAt: map[int64]int64{}}
		s := newScanner(i, &ref, ptrs, from, to, i.jumpScan(j))
		j.s, s.maxBytes = s, budget
		if err := s.run(ctx); err != nil {
			return nil, err
		}
		res.ScannedTo = s.end
		if j.best >= 0 {
			res.Offset = &j.best
		} else if s.end < to {
			res.Next = &res.ScannedTo
		}
		return res, nil
	}
	// Backward, scan chunks ending at ScannedFrom, each twice as wide as
	// the last but no wider than the budget left allows at the bytes an
	// offset cost so far. A chunk is scanned whole (what it holds is
	// known only once it is), so a call reads at least one chunk.
	res.ScannedFrom, res.ScannedTo = to, to
	width, spent := int64(1024), int64(0)
	for res.ScannedFrom > from {
		if req.Kind != JumpGap && req.Kind != JumpGapBeforeLogStart && res.ScannedFrom <= ptrs.LogStartOffset {
			res.ScannedFrom = from // below the log start there are only gaps
			break
		}
		if spent >= budget {
			res.Next = &res.ScannedFrom
			break
		}
		if scanned := to - res.ScannedFrom; spent > 0 && scanned > 0 {
			affordable := float64(budget-spent) * float64(scanned) / float64(spent)
			width = min(width, max(1024, int64(min(affordable, 1<<62))))
		}
		lo := max(from, res.ScannedFrom-width)
		j := &jumpSink{kind: req.Kind, backward: true, best: -1, pendingAt: map[int64]int64{}}
		s := newScanner(i, &ref, ptrs, lo, res.ScannedFrom, i.jumpScan(j))
		j.s = s
		if err := s.run(ctx); err != nil {
			return nil, err
		}
		spent += s.fetched
		res.ScannedFrom = lo
		if j.best >= 0 {
			res.Offset = &j.best
			break
		}
		width *= 2
	}
	return res, nil
}

// jumpScan is what a scan for j reports to: the runs of offsets by class
// (batch headers), or for JumpTombstone the records themselves.
func (i *Inspector) jumpScan(j *jumpSink) scanSink {
	if j.kind == JumpTombstone {
		return tombstones{j: j, codecs: i.codecs}
	}
	return runs{sink: j, codecs: i.codecs}
}

// jumpSink keeps the first (or last) offset of a kind seen in a scan.
type jumpSink struct {
	s        *scanner
	kind     JumpKind
	backward bool
	best     int64 // -1 until found
	// pendingAt holds, per producer with open records, the first (or
	// last) of them: they all share one outcome.
	pendingAt map[int64]int64
}

func (j *jumpSink) run(first, last int64, c class, pid int64) {
	if c == classOpen {
		if !j.kind.pendingKind() {
			return
		}
		if _, ok := j.pendingAt[pid]; j.backward {
			j.pendingAt[pid] = last // runs come in offset order
		} else if !ok {
			j.pendingAt[pid] = first
		}
		return
	}
	if j.kind.matches(c) {
		if j.backward {
			j.best = max(j.best, last)
		} else {
			j.found(first)
		}
	}
}

// keep notes o, an offset of the kind: backward the last one seen is the
// answer, forward the first (found).
func (j *jumpSink) keep(o int64) {
	if j.backward {
		j.best = max(j.best, o)
	} else {
		j.found(o)
	}
}

func (j *jumpSink) resolve(pid int64, txn string) {
	at, ok := j.pendingAt[pid]
	delete(j.pendingAt, pid)
	if ok && j.kind.matches(dataClass(txn)) {
		j.keep(at)
	}
}

// found keeps o when it is the earliest so far; nothing past it matters
// any more, except to resolve earlier open records.
func (j *jumpSink) found(o int64) {
	if j.best < 0 || o < j.best {
		j.best = o
	}
	j.s.stopAt(j.best + 1)
}

// tombstones decodes the data batches of a scan for j, a jump to
// JumpTombstone: a tombstone is known from its record, whatever its
// transaction's outcome, so gaps, control records and outcomes tell
// nothing.
type tombstones struct {
	j      *jumpSink
	codecs *codecs
}

func (tombstones) gap(int64, int64, class)          {}
func (tombstones) control(*rawBatch, int64, string) {}
func (tombstones) resolve(int64, string)            {}

// data decodes the records of b in [lo, hi] (with ReadLog's decoder) and
// keeps the tombstones; forward, it stops at the first.
func (t tombstones) data(b *rawBatch, lo, hi int64, _ string) (first, last int64, err error) {
	first, last = -1, -1
	err = recordsIn(t.codecs, b, nil, lo, hi, func(o int64, rec *rawRecord) bool {
		if first < 0 {
			first = o
		}
		last = o
		if rec.Key != nil && rec.Value == nil {
			t.j.keep(o)
			return t.j.backward // forward, nothing past the first matters
		}
		return true
	})
	if err != nil {
		return -1, -1, err
	}
	return first, last, nil
}
