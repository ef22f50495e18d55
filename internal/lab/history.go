package lab

import (
	"context"

	"github.com/offsetlab/offsetlab/internal/live"
	"github.com/offsetlab/offsetlab/internal/producer"
)

// maxRecordedPartitions is how many partitions of one topic a write keeps
// recorded when it does not say which it writes to.
const maxRecordedPartitions = 8

// record keeps the partitions a write is about to touch (or touched)
// polled, their history recorded, and waits until each has been read as
// it is now: called before a write, the write shows in the history as a
// change; after it, the history holds it when the use case returns. With no partitions it
// records every partition of the topic (up to maxRecordedPartitions).
// A partition it cannot watch (too many are) is simply not recorded.
func (l *Lab) record(ctx context.Context, topic string, partitions ...int32) {
	if len(partitions) == 0 {
		t, err := l.cluster.Topic(ctx, topic)
		if err != nil {
			return
		}
		for p := range min(len(t.Partitions), maxRecordedPartitions) {
			partitions = append(partitions, int32(p))
		}
	}
	if err := l.hub.Keep(ctx, topic, partitions...); err != nil {
		l.log.Debug("lab: partitions not all recorded", "topic", topic, "err", err)
	}
}

// recordWritten reads the partitions a transaction wrote, after a write.
func (l *Lab) recordWritten(ctx context.Context, written []producer.TopicPartition) {
	for _, p := range written {
		l.record(ctx, p.Topic, p.Partition)
	}
}

// pinned is the partition req pins, if it pins one: none means the
// partitioner picks.
func pinned(req producer.Request) []int32 {
	if req.Partition == nil {
		return nil
	}
	return []int32{*req.Partition}
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
