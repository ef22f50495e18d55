package inspect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
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
// limit records were received, or — once the consumer goes quiet — when
// both hold: the raw log shows nothing left in [position, end) that must
// be delivered whatever the transactions' outcomes (only transactional data
// and gaps remain), and the consumer has since read at least as many fetch
// response bytes as those remaining batches occupy, so it has seen them
// all. If the remaining batches exceed ScanBudget, the second test becomes
// two fetch responses and settleProbes×pollProbe of quiet. Otherwise the
// call waits until ctx ends (DefaultReadRecordsTimeout when ctx has no
// deadline) and fails.
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

	watch := new(fetchWatch)
	opts := append(slices.Clip(i.consumerOpts),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(level),
		kgo.KeepControlRecords(),
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.WithHooks(watch),
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
			watch.reset()
			continue
		}
		quiet++
		tail, err := i.remaining(ctx, &ref, position, end)
		if err != nil {
			return nil, err
		}
		if tail.mustDeliver {
			continue
		}
		responses, bytes := watch.load()
		if tail.known && responses > 0 && bytes >= tail.bytes {
			break
		}
		if !tail.known && responses >= 2 && quiet >= settleProbes {
			break
		}
	}
	return out, nil
}

// fetchWatch counts the fetch responses a consumer client reads.
type fetchWatch struct {
	responses, bytes atomic.Int64
}

// OnBrokerRead implements kgo.HookBrokerRead.
func (w *fetchWatch) OnBrokerRead(_ kgo.BrokerMetadata, key int16, bytesRead int, _, _ time.Duration, err error) {
	if key == int16(kmsg.Fetch) && err == nil {
		w.responses.Add(1)
		w.bytes.Add(int64(bytesRead))
	}
}

func (w *fetchWatch) reset() {
	w.responses.Store(0)
	w.bytes.Store(0)
}

func (w *fetchWatch) load() (responses, bytes int64) {
	return w.responses.Load(), w.bytes.Load()
}

func consumedRecord(r *kgo.Record) Record {
	rec := Record{Offset: r.Offset}
	rec.Key, rec.KeyEncoding, _ = encodeBytes(r.Key, 0)
	rec.Value, rec.ValueEncoding, rec.ValueTruncated = encodeBytes(r.Value, MaxValueBytes)
	return rec
}

// tail describes the batches of [from, end) as a consumer would fetch them.
type tail struct {
	// mustDeliver: a control record or a non-transactional data record
	// lies in the range, which a consumer with KeepControlRecords
	// receives whatever the outcome of any transaction.
	mustDeliver bool
	// bytes is the size of the batches overlapping the range, when known.
	bytes int64
	known bool
}

// remaining reads the raw batches of [from, end), for at most ScanBudget
// bytes.
func (i *Inspector) remaining(ctx context.Context, ref *partitionRef, from, end int64) (tail, error) {
	var t tail
	var scanned int64
	for offset := from; offset < end; {
		if scanned >= i.ScanBudget {
			return t, nil
		}
		rp, err := i.fetch(ctx, ref, offset, false, DefaultFetchBytes)
		if errors.Is(err, kerr.OffsetOutOfRange) {
			return tail{}, nil
		}
		if err != nil {
			return tail{}, err
		}
		scanned += int64(len(rp.RecordBatches))
		raw, progressed := rp.RecordBatches, false
		for len(raw) > 0 {
			b, rest, complete, err := splitBatch(raw)
			if err != nil {
				return tail{}, fmt.Errorf("inspect: fetch %s at offset %d: %w", ref, offset, err)
			}
			if !complete {
				break
			}
			size := len(raw) - len(rest)
			raw = rest
			if b.BaseOffset >= end {
				t.known = true
				return t, nil
			}
			if b.LastOffset < offset {
				continue
			}
			offset, progressed = b.LastOffset+1, true
			t.bytes += int64(size)
			if b.Magic != 2 || (b.transactional() && !b.control()) {
				continue
			}
			has, err := i.hasRecordIn(&b, from, end)
			if err != nil {
				return tail{}, err
			}
			if has {
				t.mustDeliver = true
				return t, nil
			}
		}
		if !progressed {
			break
		}
	}
	t.known = true
	return t, nil
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
