package inspect

import (
	"context"
	"time"
)

// MaxWriters caps the producers a map or a Writers answer lists, so that a
// partition written by a new idempotent producer per record keeps its
// answer small; WritersCut says when more wrote.
const MaxWriters = 1000

// ProducerWrite is one producer that wrote to a partition, with the first
// offset it wrote (a record or a transaction marker) in the range read.
type ProducerWrite struct {
	ProducerID  int64 `json:"producerId"`
	FirstOffset int64 `json:"firstOffset"`
}

// writeTally notes, as a scan hands it batches in offset order, who wrote
// them (each producer once, at its first batch) and the earliest and
// latest batch timestamps.
type writeTally struct {
	order []ProducerWrite
	seen  map[int64]bool
	cut   bool
	first time.Time
	last  time.Time
}

func newWriteTally() *writeTally { return &writeTally{seen: make(map[int64]bool)} }

// note counts batch b, whose first offset in the range is o.
func (w *writeTally) note(b *rawBatch, o int64) {
	if w == nil {
		return
	}
	if b.ProducerID >= 0 && !w.seen[b.ProducerID] {
		if len(w.order) < MaxWriters {
			w.seen[b.ProducerID] = true
			w.order = append(w.order, ProducerWrite{ProducerID: b.ProducerID, FirstOffset: o})
		} else {
			w.cut = true
		}
	}
	if b.FirstTimestamp > 0 {
		if ts := time.UnixMilli(b.FirstTimestamp); w.first.IsZero() || ts.Before(w.first) {
			w.first = ts
		}
	}
	if b.MaxTimestamp > 0 {
		if ts := time.UnixMilli(b.MaxTimestamp); ts.After(w.last) {
			w.last = ts
		}
	}
}

// PartitionWriters is who wrote a partition's offsets [From, To), in the
// order of their first offset, and when the first and last batches there
// were written (their timestamps: the producers' clocks unless the topic
// uses LogAppendTime).
type PartitionWriters struct {
	Topic     string          `json:"topic"`
	Partition int32           `json:"partition"`
	From      int64           `json:"from"`
	To        int64           `json:"to"`
	Producers []ProducerWrite `json:"producers"`
	// Cut says more than MaxWriters producers wrote: the later ones are
	// not listed.
	Cut        bool      `json:"cut,omitempty"`
	FirstWrite time.Time `json:"firstWrite,omitzero"`
	LastWrite  time.Time `json:"lastWrite,omitzero"`
}

// Writers reads the batch headers of a partition's offsets [from, to) —
// from -1 is the log start, to -1 the high watermark, as in MapRequest —
// or until maxBytes of batches have been read (0: no cap), and lists the
// producers that wrote there in the order of their first offset: the
// order the page numbers them in (P1, P2 …), so that every viewer and
// every reload names a producer alike. To says how far it read: with a
// cap it can stop early, at a fetch boundary.
//
// Cost: that of MapPartition over the same range with one bucket.
func (i *Inspector) Writers(ctx context.Context, topic string, partition int32, from, to, maxBytes int64) (*PartitionWriters, error) {
	ref, ptrs, from, to, err := i.locateRange(ctx, topic, partition, from, to)
	if err != nil {
		return nil, err
	}
	m := newMapSink(topic, partition, ptrs, from, to, 1)
	tally := newWriteTally()
	s := newScanner(i, &ref, ptrs, from, to, runs{sink: m, codecs: i.codecs, writes: tally})
	s.maxBytes = maxBytes
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	return &PartitionWriters{
		Topic: topic, Partition: partition, From: from, To: s.end,
		Producers: tally.order, Cut: tally.cut, FirstWrite: tally.first, LastWrite: tally.last,
	}, nil
}
