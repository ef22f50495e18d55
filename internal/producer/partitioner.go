package producer

import (
	"context"

	"github.com/twmb/franz-go/pkg/kgo"
)

// pinKey is the context key of a record's requested partition.
type pinKey struct{}

// pin returns ctx carrying the partition a record must go to.
func pin(ctx context.Context, partition int32) context.Context {
	return context.WithValue(ctx, pinKey{}, partition)
}

// pinned is the partition a record's context asks for, if any.
func pinned(r *kgo.Record) (int32, bool) {
	if r.Context == nil {
		return 0, false
	}
	p, ok := r.Context.Value(pinKey{}).(int32)
	return p, ok
}

// pinnedPartitioner sends a record whose context asks for a partition (see
// pin) to that partition, and every other record where the Java client's
// default would: by key hash when it has a key, sticky otherwise. One
// client can so write to a chosen partition and to the default one, as a
// long-lived transactional session must.
func pinnedPartitioner() kgo.Partitioner {
	return pinnedTopics{fallback: kgo.StickyKeyPartitioner(nil)}
}

type pinnedTopics struct{ fallback kgo.Partitioner }

func (p pinnedTopics) ForTopic(topic string) kgo.TopicPartitioner {
	return pinnedTopic{fallback: p.fallback.ForTopic(topic)}
}

type pinnedTopic struct{ fallback kgo.TopicPartitioner }

func (t pinnedTopic) RequiresConsistency(r *kgo.Record) bool {
	_, ok := pinned(r)
	return ok || t.fallback.RequiresConsistency(r)
}

func (t pinnedTopic) Partition(r *kgo.Record, n int) int {
	if p, ok := pinned(r); ok {
		return int(p)
	}
	return t.fallback.Partition(r, n)
}

// OnNewBatch lets a sticky fallback move on to another partition.
func (t pinnedTopic) OnNewBatch() {
	if nb, ok := t.fallback.(kgo.TopicPartitionerOnNewBatch); ok {
		nb.OnNewBatch()
	}
}
