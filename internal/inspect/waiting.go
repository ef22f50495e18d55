package inspect

import (
	"context"
)

// WaitingBudget bounds the bytes Waiting reads.
const WaitingBudget = 16 << 20

// WaitingCount is how many records wait behind a partition's last stable
// offset: the plain and committed data records in [LastStableOffset,
// HighWatermark), which a read_committed consumer receives only once the
// transactions open at the LSO end. The open transactions' own records
// are not counted (their fate is not decided), nor are markers, aborted
// records and gaps.
type WaitingCount struct {
	Pointers
	// Waiting is the count; a lower bound when Complete is false.
	Waiting int64 `json:"waiting"`
	// Complete is false when the count stopped at WaitingBudget bytes
	// before the high watermark.
	Complete bool `json:"complete"`
	// CountedTo is the offset the count reached (the high watermark when
	// Complete).
	CountedTo int64 `json:"countedTo"`
}

// Waiting counts the records waiting behind the partition's last stable
// offset (see WaitingCount). It is one pass over the batch headers of
// [LSO, HW), as MapPartition reads them (transactions still open at the
// high watermark resolved by one DescribeProducers), stopped after
// WaitingBudget bytes. A partition whose LSO is its high watermark waits
// for nothing and costs only the pointers' ListOffsets.
func (i *Inspector) Waiting(ctx context.Context, topic string, partition int32) (WaitingCount, error) {
	ref, ptrs, err := i.locatePointers(ctx, topic, partition)
	if err != nil {
		return WaitingCount{}, err
	}
	from, to := max(ptrs.LastStableOffset, ptrs.LogStartOffset), ptrs.HighWatermark
	out := WaitingCount{Pointers: ptrs, Complete: true, CountedTo: to}
	if from >= to {
		return out, nil
	}
	m := newMapSink(topic, partition, ptrs, from, to, 1)
	s := newScanner(i, &ref, ptrs, from, to, runs{sink: m, codecs: i.codecs})
	s.maxBytes = WaitingBudget
	if err := s.run(ctx); err != nil {
		return WaitingCount{}, err
	}
	t := m.pm.Total()
	out.Waiting = t.Plain + t.Committed
	if s.end < to {
		out.Complete, out.CountedTo = false, s.end
	}
	return out, nil
}
