package inspect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// DefaultReadRecordsTimeout bounds a ReadRecords call whose context has no
// deadline.
const DefaultReadRecordsTimeout = 15 * time.Second

// How ReadRecords decides that its consumer has nothing more to deliver
// when it cannot see the consumer's position (see ReadRecords).
const (
	pollProbe    = 200 * time.Millisecond
	settleProbes = 3
)

// ReadRecords returns what a real franz-go consumer at isolation level iso
// receives from offset from (the log start offset when from is lower) up
// to the partition's end when the call starts — the last stable offset for
// read_committed, the high watermark for read_uncommitted — at most limit
// records (clamped like ReadLog's limit). Values longer than MaxValueBytes
// are truncated and flagged.
//
// Each call starts a fresh consumer client (the Inspector's consumer
// options plus ConsumePartitions, FetchIsolationLevel and
// KeepControlRecords) and closes it before returning; it joins no group and
// commits nothing. Control records are kept only to observe the consumer's
// progress and are not returned.
//
// A consumer does not expose its position, so the call stops when the
// consumer hands out a record (data or control) at end-1 or later, or when
// limit records were received, or — when the consumer goes quiet — once the
// raw log shows that nothing left in [position, end) must be delivered
// whatever the transactions' outcomes (only transactional data and gaps
// remain) and the consumer stayed quiet for settleProbes×pollProbe. While
// the raw log holds a non-transactional record or a marker the consumer has
// not handed out, the call waits for it until ctx ends
// (DefaultReadRecordsTimeout when ctx has no deadline), and then fails.
func (i *Inspector) ReadRecords(ctx context.Context, topic string, partition int32, iso Isolation, from int64, limit int) ([]Record, error) {
	if !iso.Valid() {
		return nil, fmt.Errorf("inspect: consume %s/%d: %w %q", topic, partition, ErrInvalidIsolation, iso)
	}
	limit = clampLimit(limit)
	ref, err := i.locate(ctx, topic, partition)
	if err != nil {
		return nil, err
	}
	ptrs, err := i.pointers(ctx, &ref)
	if err != nil {
		return nil, err
	}
	end, level := ptrs.HighWatermark, kgo.ReadUncommitted()
	if iso == ReadCommitted {
		end, level = ptrs.LastStableOffset, kgo.ReadCommitted()
	}
	from = max(from, ptrs.LogStartOffset)
	out := []Record{}
	if from >= end {
		return out, nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultReadRecordsTimeout)
		defer cancel()
	}

	opts := append(slices.Clip(i.consumerOpts),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(level),
		kgo.KeepControlRecords(),
		kgo.FetchMaxWait(time.Second),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("inspect: consume %s: %w", ref, err)
	}
	defer cl.Close()

	position := from // the offset after the last record the consumer handed out
	quiet := 0
	for len(out) < limit && position < end {
		probe, cancel := context.WithTimeout(ctx, pollProbe)
		fetches := cl.PollFetches(probe)
		cancel()
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("inspect: consume %s: consumer reached offset %d, not %d: %w", ref, position, end, err)
		}
		for _, fe := range fetches.Errors() {
			if errors.Is(fe.Err, context.DeadlineExceeded) || errors.Is(fe.Err, context.Canceled) {
				continue
			}
			return nil, requestErr("consume", ref, fe.Err)
		}
		progressed := false
		fetches.EachRecord(func(r *kgo.Record) {
			if r.Offset < position {
				return
			}
			progressed = true
			position = r.Offset + 1
			if r.Offset >= end || r.Attrs.IsControl() || len(out) >= limit {
				return
			}
			out = append(out, consumedRecord(r))
		})
		if progressed {
			quiet = 0
			continue
		}
		quiet++
		pending, err := i.mustDeliver(ctx, &ref, position, end)
		if err != nil {
			return nil, err
		}
		if !pending && quiet >= settleProbes {
			break
		}
	}
	return out, nil
}

func consumedRecord(r *kgo.Record) Record {
	rec := Record{Offset: r.Offset}
	rec.Key, rec.KeyEncoding, _ = encodeBytes(r.Key, 0)
	rec.Value, rec.ValueEncoding, rec.ValueTruncated = encodeBytes(r.Value, MaxValueBytes)
	return rec
}

// mustDeliver reports whether [from, end) holds a record that a consumer
// with KeepControlRecords receives whatever the outcome of any transaction:
// a control record or a non-transactional data record. It reads raw batches
// for at most ScanBudget bytes and answers false past that.
func (i *Inspector) mustDeliver(ctx context.Context, ref *partitionRef, from, end int64) (bool, error) {
	var scanned int64
	for offset := from; offset < end && scanned < i.ScanBudget; {
		rp, err := i.fetch(ctx, ref, offset, false, DefaultFetchBytes)
		if errors.Is(err, kerr.OffsetOutOfRange) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		scanned += int64(len(rp.RecordBatches))
		raw, progressed := rp.RecordBatches, false
		for len(raw) > 0 {
			b, rest, complete, err := splitBatch(raw)
			if err != nil {
				return false, fmt.Errorf("inspect: fetch %s at offset %d: %w", ref, offset, err)
			}
			if !complete {
				break
			}
			raw = rest
			if b.BaseOffset >= end {
				return false, nil
			}
			if b.LastOffset < offset {
				continue
			}
			offset, progressed = b.LastOffset+1, true
			if b.Magic != 2 || (b.transactional() && !b.control()) {
				continue
			}
			if has, err := i.hasRecordIn(&b, from, end); has || err != nil {
				return has, err
			}
		}
		if !progressed {
			return false, nil
		}
	}
	return false, nil
}

// hasRecordIn reports whether batch b holds a record with an offset in
// [lo, hi): compaction may have removed the ones a header promises.
func (i *Inspector) hasRecordIn(b *rawBatch, lo, hi int64) (bool, error) {
	src, err := i.codecs.decompress(b.codec(), b.Records)
	if err != nil {
		return false, fmt.Errorf("%w at offset %d: %w", ErrCorruptBatch, b.BaseOffset, err)
	}
	records := &recordReader{src: src}
	for range b.NumRecords {
		rec, err := records.next()
		if err != nil {
			return false, fmt.Errorf("%w at offset %d: %w", ErrCorruptBatch, b.BaseOffset, err)
		}
		if o := b.BaseOffset + int64(rec.OffsetDelta); o >= lo && o < hi {
			return true, nil
		}
	}
	return false, nil
}
