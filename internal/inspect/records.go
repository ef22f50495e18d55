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

	"github.com/offsetlab/offsetlab/internal/problem"
)

// consumerFetchBytes bounds one fetch of ReadRecords' consumer.
const consumerFetchBytes = 2 << 20

// DefaultReadRecordsTimeout bounds a ReadRecords call whose context has no
// deadline.
const DefaultReadRecordsTimeout = 15 * time.Second

// How long ReadRecords polls its consumer at a time, and how many idle
// polls end it when it cannot count batches (see ReadRecords).
const (
	pollProbe    = 200 * time.Millisecond
	settleProbes = 3
)

// ReadRecords returns what a real franz-go consumer at isolation level iso
// receives from offset from (the log start offset when from is lower) up
// to the partition's end when the call starts — the last stable offset for
// read_committed, the high watermark for read_uncommitted — at most limit
// records (clamped like ReadLog's limit), and no more than AnswerBytes of
// them as JSON (ReadRecordsPage says when that cut the read). Values
// longer than MaxValueBytes are truncated and flagged.
//
// The consumer decompresses with the Inspector's bounded codecs and drops
// the headers of a batch whose records carry more than MaxHeaders (see
// headerDropper): a Record shows none.
//
// Each call starts a fresh consumer client (the Inspector's consumer
// options plus ConsumePartitions, FetchIsolationLevel and
// KeepControlRecords) and closes it before returning; it joins no group and
// commits nothing. Control records are kept only to observe the consumer's
// progress and are not returned.
//
// A consumer does not expose its position, so the call stops when:
//   - the consumer hands out a record (data or control) at end-1 or later;
//   - limit records were received;
//   - or the consumer went quiet past every record it must deliver
//     whatever the transactions' outcomes (the last non-transactional
//     record or marker below end, found in the raw log), and it had read
//     every batch overlapping [from, end) — counted by a HookFetchBatchRead
//     against the raw log's record bytes — before a further poll of
//     pollProbe returned nothing. A consumer that has read all those
//     batches has buffered everything it will deliver below end.
//
// When [from, end) exceeds ScanBudget the batch count is unknown; the call
// then stops after settleProbes polls in which the consumer read no batch.
// Otherwise it waits until ctx ends (DefaultReadRecordsTimeout when ctx has
// no deadline) and fails.
func (i *Inspector) ReadRecords(ctx context.Context, topic string, partition int32, iso Isolation, from int64, limit int) ([]Record, error) {
	page, err := i.ReadRecordsPage(ctx, topic, partition, iso, from, limit)
	if err != nil {
		return nil, err
	}
	return page.Records, nil
}

// RecordsPage is what ReadRecordsPage returns: the records, and, when the
// answer's byte budget ended the read before limit records or the end,
// Truncated and the offset to read on from.
type RecordsPage struct {
	Records   []Record
	Truncated bool
	Next      *int64
}

// ReadRecordsPage is ReadRecords that also stops before the first record
// that would take the records past AnswerBytes of JSON (never before the
// first), and says so.
func (i *Inspector) ReadRecordsPage(ctx context.Context, topic string, partition int32, iso Isolation, from int64, limit int) (*RecordsPage, error) {
	if !iso.Valid() {
		return nil, problem.New(problem.Invalid, "error.isolationInvalid", "isolation", string(iso))
	}
	limit = clampLimit(limit)
	ref, ptrs, err := i.locatePointers(ctx, topic, partition)
	if err != nil {
		return nil, err
	}
	end, level := ptrs.HighWatermark, kgo.ReadUncommitted()
	if iso == ReadCommitted {
		end, level = ptrs.LastStableOffset, kgo.ReadCommitted()
	}
	from = max(from, ptrs.LogStartOffset)
	page := &RecordsPage{Records: []Record{}}
	if from >= end {
		return page, nil
	}
	out, budget := page.Records, newAnswerBudget(i.AnswerBytes)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultReadRecordsTimeout)
		defer cancel()
	}

	watch := &fetchWatch{topic: topic, partition: partition}
	opts := append(slices.Clip(i.consumerOpts),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(from)}}),
		kgo.FetchIsolationLevel(level),
		kgo.KeepControlRecords(),
		kgo.FetchMaxWait(200*time.Millisecond),
		// One fetch at a time, of at most a few MiB: the client buffers
		// little ahead of what this call has read, whatever the size of
		// the partition (a batch larger than the limit still comes whole).
		kgo.MaxConcurrentFetches(1),
		kgo.FetchMaxBytes(consumerFetchBytes),
		kgo.FetchMaxPartitionBytes(consumerFetchBytes),
		kgo.WithHooks(watch),
		kgo.WithDecompressor(headerDropper{i.codecs}),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("inspect: consume %s: %w", ref, err)
	}
	defer cl.Close()

	var (
		position = from // the offset after the last record handed out
		plan     *rangePlan
		ready    bool  // the consumer had read everything before this poll
		idle     int   // polls in a row in which the consumer read no batch
		read     int64 // record bytes the consumer had read at the last poll
	)
	for len(out) < limit && position < end && !page.Truncated {
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
			if r.Offset >= end || r.Attrs.IsControl() || len(out) >= limit || page.Truncated {
				return
			}
			rec := consumedRecord(r)
			if !budget.take(recordSize(&rec)) {
				next := r.Offset
				page.Truncated, page.Next = true, &next
				return
			}
			out = append(out, rec)
		})
		now := watch.read.Load()
		if now != read {
			idle = 0
		} else {
			idle++
		}
		read = now
		if progressed {
			ready = false
			continue
		}
		if ready {
			break
		}
		if plan == nil {
			if plan, err = i.planRange(ctx, &ref, from, end); err != nil {
				return nil, asProblem(err)
			}
		}
		if !plan.known {
			if read > 0 && idle >= settleProbes {
				break
			}
			continue
		}
		ready = position > plan.lastMust && read >= plan.recordBytes
	}
	page.Records = out
	return page, nil
}

// fetchWatch sums the record bytes of the batches a consumer client reads
// from one partition.
type fetchWatch struct {
	topic     string
	partition int32
	read      atomic.Int64
}

// OnFetchBatchRead implements kgo.HookFetchBatchRead. It runs before the
// batch's records are buffered for polling.
func (w *fetchWatch) OnFetchBatchRead(_ kgo.BrokerMetadata, topic string, partition int32, m kgo.FetchBatchMetrics) {
	if topic == w.topic && partition == w.partition {
		w.read.Add(int64(m.CompressedBytes))
	}
}

func consumedRecord(r *kgo.Record) Record {
	rec := Record{Offset: r.Offset}
	rec.Key, rec.KeyEncoding, rec.KeyTruncated = encodeBytes(r.Key, MaxValueBytes)
	rec.Value, rec.ValueEncoding, rec.ValueTruncated = encodeBytes(r.Value, MaxValueBytes)
	return rec
}

// rangePlan is what a consumer of [from, end) must get through, from the
// raw log.
type rangePlan struct {
	// recordBytes sums the (compressed) record bytes of the batches
	// overlapping the range, as kgo.FetchBatchMetrics.CompressedBytes
	// counts them.
	recordBytes int64
	// lastMust is the last offset in the range holding a control record
	// or a non-transactional data record: what a consumer with
	// KeepControlRecords receives whatever the outcome of any
	// transaction. It is from-1 when there is none.
	lastMust int64
	// known is false when the range exceeds ScanBudget.
	known bool
}

// planRange reads the raw batches of [from, end), for at most ScanBudget
// bytes.
func (i *Inspector) planRange(ctx context.Context, ref *partitionRef, from, end int64) (*rangePlan, error) {
	plan := &rangePlan{lastMust: from - 1}
	var scanned int64
	for offset := from; offset < end; {
		if scanned >= i.ScanBudget {
			return plan, nil
		}
		rp, err := i.fetch(ctx, ref, offset, false, DefaultFetchBytes)
		if errors.Is(err, kerr.OffsetOutOfRange) {
			return plan, nil // deleted meanwhile: unknown
		}
		if err != nil {
			return nil, err
		}
		scanned += int64(len(rp.RecordBatches))
		raw, progressed := rp.RecordBatches, false
		for len(raw) > 0 && offset < end {
			b, rest, complete, err := splitBatch(raw)
			if err != nil {
				return nil, fmt.Errorf("inspect: fetch %s at offset %d: %w", ref, offset, err)
			}
			if !complete {
				break
			}
			raw = rest
			if b.BaseOffset >= end {
				offset = end
				break
			}
			if b.LastOffset < offset {
				continue
			}
			offset, progressed = b.LastOffset+1, true
			plan.recordBytes += int64(len(b.Records))
			if b.Magic != 2 || (b.transactional() && !b.control()) {
				continue
			}
			last, err := i.lastRecordIn(&b, from, end)
			if err != nil {
				return nil, err
			}
			plan.lastMust = max(plan.lastMust, last)
		}
		if !progressed {
			break
		}
	}
	plan.known = true
	return plan, nil
}

// lastRecordIn returns the offset of the last record of batch b in
// [lo, hi), or lo-1 when there is none: compaction may have removed the
// records a header promises.
func (i *Inspector) lastRecordIn(b *rawBatch, lo, hi int64) (int64, error) {
	src, err := i.codecs.Decompress(b.codec(), b.Records)
	if err != nil {
		return 0, fmt.Errorf("%w at offset %d: %w", ErrCorruptBatch, b.BaseOffset, err)
	}
	last := lo - 1
	records := &recordReader{src: src}
	for range b.NumRecords {
		rec, err := records.next()
		if err != nil {
			return 0, fmt.Errorf("%w at offset %d: %w", ErrCorruptBatch, b.BaseOffset, err)
		}
		if o := b.BaseOffset + int64(rec.OffsetDelta); o >= lo && o < hi {
			last = o
		}
	}
	return last, nil
}
