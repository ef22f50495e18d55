package lab

import (
	"context"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// maxRecordedPartitions is how many partitions of one topic a write keeps
// recorded when it does not say which it writes to.
const maxRecordedPartitions = 8

// record keeps the partitions a write is about to touch (or touched)
// polled, their history recorded, and waits until each has been read as
// it is now: called before a write, the write shows in the history as a
// change; after it, the history holds it when the use case returns. A
// partition it cannot watch (too many are) is simply not recorded.
func (l *Lab) record(ctx context.Context, topic string, partitions []int32) {
	if err := l.hub.Keep(ctx, topic, partitions...); err != nil {
		l.log.Debug("lab: partitions not all recorded", "topic", topic, "err", err)
	}
}

// Compacted tells the live view of topic's partition that the log cleaner
// rewrote offsets below its LSO: it reads them again now rather than at
// its next whole read of the tail (live.Config.TailEvery).
func (l *Lab) Compacted(ctx context.Context, topic string, partition int32) {
	if err := l.hub.Rewritten(ctx, topic, partition); err != nil {
		l.log.Debug("lab: compacted partition not read again", "topic", topic, "err", err)
	}
}

// recordWritten reads the partitions a transaction wrote, after a write.
func (l *Lab) recordWritten(ctx context.Context, written []producer.TopicPartition) {
	for _, p := range written {
		l.record(ctx, p.Topic, []int32{p.Partition})
	}
}

// toRecord are the partitions of t a write may touch: the one it pins, or
// (the partitioner picks) every partition, up to maxRecordedPartitions.
func toRecord(t cluster.TopicInfo, pin *int32) []int32 {
	if pin != nil {
		return []int32{*pin}
	}
	out := make([]int32, 0, min(len(t.Partitions), maxRecordedPartitions))
	for p := range cap(out) {
		out = append(out, int32(p))
	}
	return out
}

// History is a partition's recorded story from step from on: what the
// server saw happen to it while it was watched or written through the
// lab, for the page to replay.
func (l *Lab) History(ctx context.Context, topic string, partition int32, from int) (live.History, error) {
	if _, err := l.partition(ctx, topic, partition); err != nil {
		return live.History{}, l.notAllowed(err, "DESCRIBE", "topic", topic)
	}
	return l.hub.History(topic, partition, from)
}
