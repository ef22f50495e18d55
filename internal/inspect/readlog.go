package inspect

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxFetchBytes caps the growth of a fetch that returned only part of an
// oversized batch (brokers older than KIP-74 do that).
const maxFetchBytes = 64 << 20

// firstFetchBytes sizes ReadLog's first fetch.
const firstFetchBytes = 16 << 10

// ReadLog returns one Entry per offset in [from, min(from+limit, HW)), HW
// being the high watermark when the call starts; entries are in offset
// order and contiguous. A negative from starts at the log start offset;
// limit is clamped to [1, MaxLimit] (DefaultLimit when <= 0). A window at or
// past the high watermark has no entries.
//
// Offsets no batch holds (below the log start offset, removed by compaction
// or deletion) are gap entries. A batch that starts before from contributes
// only its records at or after from. Each transactional record's outcome
// is resolved from read_committed fetches' aborted-transaction lists below
// the last stable offset, and otherwise from the first control batch of its
// producer after it. A record whose producer's ongoing transaction
// (DescribeProducers) began at or before it is open; others are resolved
// by reading on up to the high watermark or ScanBudget bytes past the
// window, and what is still unknown is "open". ReadCommitted and
// ReadUncommitted then follow from the outcome and the Log's pointers.
//
// The window also ends before the first record that would take its
// entries past AnswerBytes of JSON (never before its first entry): the Log
// then says Truncated, and Next is the from of the next window.
//
// Errors are problem errors: an unknown topic or partition, an unreachable
// broker, or a batch it cannot decode (ErrCorruptBatch, as a Kafka error).
func (i *Inspector) ReadLog(ctx context.Context, topic string, partition int32, from int64, limit int) (*Log, error) {
	limit = clampLimit(limit)
	ref, ptrs, err := i.locatePointers(ctx, topic, partition)
	if err != nil {
		return nil, err
	}
	log := &Log{Topic: topic, Partition: partition, Pointers: ptrs, Entries: []Entry{}}
	if from < 0 {
		from = ptrs.LogStartOffset
	}
	end := ptrs.HighWatermark
	if from < end && end-from > int64(limit) {
		end = from + int64(limit)
	}
	if from >= end {
		return log, nil
	}
	w := newWindow(from, end, ptrs, i.codecs, i.AnswerBytes)
	w.values = i.Values
	if err := i.fill(ctx, &ref, w); err != nil {
		return nil, asProblem(err)
	}
	log.Entries = w.finish()
	i.settleGapReasons(ctx, topic, log.Entries)
	if w.cut {
		next := w.end
		log.Truncated, log.Next = true, &next
	}
	return log, nil
}

// fill feeds w with the partition's batches from its first offset until the
// window is done, the snapshot's high watermark is reached, or the forward
// scan's budget is spent.
func (i *Inspector) fill(ctx context.Context, ref *partitionRef, w *window) error {
	ptrs := w.ptrs
	offset := max(w.from, ptrs.LogStartOffset)
	w.gapsTo(offset, GapBeforeLogStart)
	// Below the last stable offset a read_committed fetch returns the same
	// batches plus the aborted transactions among them; past it, it
	// returns nothing, so read_uncommitted takes over.
	committed := offset < ptrs.LastStableOffset
	limit := i.FetchBytes
	if limit <= 0 {
		limit = DefaultFetchBytes
	}
	// Start small so that a narrow window at the head of a large
	// partition costs no more than at its tail; grow while reading on.
	fetchBytes := min(firstFetchBytes, limit)
	var scanned int64
	described := false
	for !w.done() && offset < ptrs.HighWatermark {
		if w.full() && !described {
			// Before scanning past the window, ask which transactions
			// are still open: their records need no marker search.
			described = true
			i.settleOngoing(ctx, ref, w)
			continue
		}
		if w.full() && scanned >= i.ScanBudget {
			break
		}
		committed = committed && offset < ptrs.LastStableOffset
		rp, err := i.fetch(ctx, ref, offset, committed, fetchBytes)
		if errors.Is(err, kerr.OffsetOutOfRange) {
			// Records were deleted since the pointers were read.
			start, lerr := i.listOffset(ctx, ref, -2, 0)
			if lerr != nil {
				return lerr
			}
			if start <= offset {
				return err
			}
			w.gapsTo(start, GapBeforeLogStart)
			offset = start
			continue
		}
		if err != nil {
			return err
		}
		wasFull := w.full()
		next, batches, err := w.feed(rp.RecordBatches, offset, committed, rp.AbortedTransactions)
		if err != nil {
			return fmt.Errorf("inspect: fetch %s at offset %d: %w", ref, offset, err)
		}
		if wasFull {
			scanned += int64(len(rp.RecordBatches))
		}
		switch {
		case batches > 0 && next > offset:
			offset = next
			fetchBytes = min(fetchBytes*2, max(limit, fetchBytes))
		case batches > 0:
			return fmt.Errorf("inspect: fetch %s at offset %d: %w: broker returned no batch at or after it", ref, offset, ErrCorruptBatch)
		case committed:
			committed = false // the last stable offset: read on uncommitted
		case len(rp.RecordBatches) > 0 && fetchBytes < maxFetchBytes:
			fetchBytes *= 2 // a batch larger than we asked for
		default:
			return nil // nothing more below the high watermark
		}
	}
	return nil
}

// settleOngoing asks the leader (DescribeProducers) which producers have a
// transaction ongoing and marks as settled-open the pending records of those
// whose ongoing transaction started at or before their first pending
// record: no marker can follow them yet. A transaction that is ongoing now
// was ongoing when the pointers were read, so the snapshot stays
// consistent. Errors (an old broker, no permission) are ignored: the
// forward scan then decides.
func (i *Inspector) settleOngoing(ctx context.Context, ref *partitionRef, w *window) {
	for pid, start := range i.ongoingTransactions(ctx, ref) {
		w.settleOpen(pid, start)
	}
}

// ongoingTransactions asks the leader (DescribeProducers) which producers
// have a transaction ongoing on the partition, and where each began:
// producer id -> current transaction start offset (-1 when none). It
// returns nothing when the request fails.
func (i *Inspector) ongoingTransactions(ctx context.Context, ref *partitionRef) map[int64]int64 {
	req := kmsg.NewPtrDescribeProducersRequest()
	rt := kmsg.NewDescribeProducersRequestTopic()
	rt.Topic = ref.topic
	rt.Partitions = []int32{ref.partition}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, i.client.Broker(int(ref.leader)))
	if err != nil {
		return nil
	}
	ongoing := make(map[int64]int64)
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if p.Partition != ref.partition || p.ErrorCode != 0 {
				continue
			}
			for _, producer := range p.ActiveProducers {
				ongoing[producer.ProducerID] = producer.CurrentTxnStartOffset
			}
		}
	}
	return ongoing
}
