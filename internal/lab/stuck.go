package lab

import (
	"context"
	"strconv"
	"strings"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/live"
)

// "Why is my read_committed consumer stuck?": the open transaction that
// holds a partition's last stable offset, named by its transactional id,
// with its age, its timeout and the records waiting behind it, and the
// abort that frees it.

// maxHeldPartitions bounds the partitions of one GroupDetail whose held
// LSO is explained (each costs a DescribeProducers and a count).
const maxHeldPartitions = 16

// HeldLSO says what holds a partition's last stable offset below its high
// watermark: the open transaction starting there (transactional id,
// producer, age, timeout) and the records waiting behind it. Cost: the
// pointers' ListOffsets; when held, DescribeProducers with the requests it
// makes for open transactions, and a pass over the batch headers of
// [LSO, HW) (at most inspect.WaitingBudget bytes). When the holder cannot
// be described the answer leaves it out (logged) rather than fail.
func (l *Lab) HeldLSO(ctx context.Context, topic string, partition int32) (cluster.LSOHold, error) {
	w, err := l.inspector.Waiting(ctx, topic, partition)
	if err != nil {
		return cluster.LSOHold{}, l.notAllowed(err, "READ", "topic", topic)
	}
	h := cluster.LSOHold{
		Topic: topic, Partition: partition, LastStableOffset: w.LastStableOffset, HighWatermark: w.HighWatermark,
		Held: w.LastStableOffset < w.HighWatermark, Waiting: w.Waiting, WaitingComplete: w.Complete,
	}
	if !h.Held {
		return h, nil
	}
	holder, err := l.cluster.LSOHolder(ctx, topic, partition, w.LastStableOffset)
	if err != nil {
		// The count still says what waits; the holder stays unnamed
		// (a user without DESCRIBE on transactional ids, a coordinator
		// moving).
		l.log.Warn("held LSO: no holder named", "topic", topic, "partition", partition, "err", err)
		return h, nil
	}
	h.Holder = holder
	return h, nil
}

// explainHeld adds to each of a group's partitions whose committed offset
// is at or below a held LSO what holds it (see HeldLSO): the record lag
// counts up to the LSO only, and the records behind it wait. A partition
// whose hold cannot be read keeps its lags as they are.
func (l *Lab) explainHeld(ctx context.Context, g *cluster.GroupDetail) {
	explained := 0
	for i := range g.Offsets {
		o := &g.Offsets[i]
		// A held LSO leaves at least the open transaction's first record
		// between it and the HW, counted by the offset lag only.
		if o.Lag <= o.RecordLag || o.RecordLag < 0 || explained >= maxHeldPartitions {
			continue
		}
		explained++
		h, err := l.HeldLSO(ctx, o.Topic, o.Partition)
		if err != nil || !h.Held || o.Committed > h.LastStableOffset {
			continue
		}
		o.Held = &h
	}
}

// ForceTerminateTransaction aborts the ongoing transaction of a
// transactional id through its coordinator, fencing its producer (see
// cluster.ForceTerminateTransaction), and narrates it on each partition
// it wrote to (a write).
func (l *Lab) ForceTerminateTransaction(ctx context.Context, id string) (cluster.TerminatedTransaction, error) {
	if err := l.writable(); err != nil {
		return cluster.TerminatedTransaction{}, err
	}
	before, err := l.cluster.Transaction(ctx, id)
	if err != nil {
		return cluster.TerminatedTransaction{}, l.notAllowed(err, "DESCRIBE", "transactional id", id)
	}
	touched := partitionsOf(before.Partitions)
	for _, tp := range touched {
		l.record(ctx, tp.topic, []int32{tp.partition})
	}
	t, err := l.cluster.ForceTerminateTransaction(ctx, id)
	if err != nil {
		return t, l.notAllowed(err, "WRITE", "transactional id", id)
	}
	msg := catalog.M("narration.forceTerminate", "txid", id, "producer", strconv.FormatInt(t.ProducerID, 10), "epoch", strconv.Itoa(int(t.ProducerEpoch)), "state", string(t.State))
	for _, tp := range touched {
		l.record(ctx, tp.topic, []int32{tp.partition})
		l.narrateAt(live.EventAbort, tp.topic, tp.partition, -1, msg)
	}
	if len(touched) == 0 {
		l.Narrate(live.EventAbort, "", 0, msg)
	}
	return t, nil
}

type topicPartition struct {
	topic     string
	partition int32
}

// partitionsOf reads a transaction's "topic-p" partitions, Kafka's
// internal topics left out.
func partitionsOf(names []string) []topicPartition {
	var out []topicPartition
	for _, name := range names {
		i := strings.LastIndexByte(name, '-')
		p, err := strconv.ParseInt(name[i+1:], 10, 32)
		if i <= 0 || err != nil || strings.HasPrefix(name, "__") {
			continue
		}
		out = append(out, topicPartition{name[:i], int32(p)})
	}
	return out
}
