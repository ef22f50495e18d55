package lab

import (
	"context"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// SharePartition is a share group's delivery state on one partition, offset
// by offset, for the offsets [from, from+limit) at or above its start
// offset (from < 0: from the start offset).
//
// On the embedded broker the states are the broker's own, exact: who holds
// each acquired record and when its lock expires. On real Kafka they are
// replayed from __share_group_state (inspect.PersistedShareState), which
// holds acknowledgements, archivals, releases and expired locks with their
// delivery counts, but no delivery, no holder and no lock: an offset the
// state topic does not settle is "inFlight" while a member is assigned
// the partition (it may be acquired), "available" otherwise — except the
// records the dashboard's own share consumers hold (share_workers.go).
//
// Cost: embedded, a Metadata request and one pass over at most limit
// offsets inside the broker;
// Kafka, a ShareGroupDescribe, a DescribeShareGroupOffsets, a
// DescribeConfigs, the partition's pointers and the state topic's
// partition read up to inspect.ShareStateBudget bytes.
func (l *Lab) SharePartition(ctx context.Context, topic string, partition int32, group string, from int64, limit int) (cluster.SharePartition, error) {
	if group == "" {
		return cluster.SharePartition{}, problem.New(problem.Invalid, "error.groupRequired")
	}
	if _, err := l.partition(ctx, topic, partition); err != nil {
		return cluster.SharePartition{}, err
	}
	limit = max(1, min(limit, inspect.MaxLimit))
	if l.cluster.Mode() == cluster.Embedded {
		if from < 0 { // from the start offset, which a window of none tells
			s, _ := l.cluster.EmbeddedSharePartition(group, topic, partition, 0, 0)
			from = max(s.StartOffset, 0)
		}
		if s, ok := l.cluster.EmbeddedSharePartition(group, topic, partition, from, limit); ok {
			l.overlayWorkers(&s)
			return s, nil
		}
	}
	g, ok, err := l.cluster.ShareGroup(ctx, group)
	if err != nil {
		return cluster.SharePartition{}, l.notAllowed(err, "DESCRIBE", "group", group)
	}
	if !ok {
		return cluster.SharePartition{}, problem.New(problem.NotFound, "error.unknownShareGroup", "group", group)
	}
	if l.cluster.Mode() == cluster.Embedded { // a group that has not read the partition
		return cluster.SharePartition{Group: group, Topic: topic, Partition: partition, StartOffset: -1, EndOffset: -1,
			Source: "broker", Records: []cluster.ShareRecord{}}, nil
	}
	ptrs, err := l.inspector.Pointers(ctx, topic, partition)
	if err != nil {
		return cluster.SharePartition{}, l.notAllowed(err, "DESCRIBE", "topic", topic)
	}
	persisted, err := l.inspector.PersistedShareState(ctx, group, topic, partition)
	if err != nil {
		return cluster.SharePartition{}, l.notAllowed(err, "READ", "topic", inspect.ShareStateTopic)
	}
	start := int64(-1)
	for _, o := range g.ShareOffsets {
		if o.Topic == topic && o.Partition == partition {
			start = o.StartOffset
		}
	}
	settings := l.cluster.ShareGroupSettings(ctx, group)
	facts := shareFacts{
		group: group, topic: topic, partition: partition, start: start, highWatermark: ptrs.HighWatermark,
		persisted: persisted, assigned: g.Assigned(topic, partition),
		deliveryLimit: settings.DeliveryCountLimit, readCommitted: settings.ReadCommitted,
	}
	first := start
	if first < 0 && persisted.Found {
		first = persisted.StartOffset
	}
	if first = max(first, from); first >= 0 && first < ptrs.HighWatermark {
		// The log tells which offsets are markers and aborted records,
		// which no consumer receives: without it the state topic alone
		// calls them delivered and rejected, or still in flight.
		if log, err := l.inspector.ReadLog(ctx, topic, partition, first, limit); err == nil {
			facts.undeliverable = undeliverable(log.Entries, settings.ReadCommitted)
		}
	}
	sp := shareFromStateTopic(facts, from, limit)
	l.overlayWorkers(&sp)
	return sp, nil
}

// shareFacts is what Kafka tells of a share-partition.
type shareFacts struct {
	group         string
	topic         string
	partition     int32
	start         int64 // from DescribeShareGroupOffsets; -1 when none
	highWatermark int64
	persisted     inspect.PersistedShareState
	assigned      bool // a member is assigned the partition
	deliveryLimit int32
	readCommitted bool // share.isolation.level=read_committed
	// undeliverable are the offsets no consumer of the group receives:
	// markers, and under read_committed the aborted records.
	undeliverable map[int64]bool
}

// undeliverable are the offsets among entries that a share group never
// delivers: transaction markers (a consumer acknowledges them as a gap),
// and under read_committed the records of aborted transactions, which
// Kafka archives when it acquires them.
func undeliverable(entries []inspect.Entry, readCommitted bool) map[int64]bool {
	out := map[int64]bool{}
	for _, e := range entries {
		if e.Control || readCommitted && e.Kind == "data" && e.Txn == "aborted" {
			out[e.Offset] = true
		}
	}
	return out
}

// shareFromStateTopic builds the window [from, from+limit) of a Kafka
// share-partition from its persisted state.
func shareFromStateTopic(f shareFacts, from int64, limit int) cluster.SharePartition {
	out := cluster.SharePartition{
		Group: f.group, Topic: f.topic, Partition: f.partition, StartOffset: f.start, EndOffset: f.start,
		HighWatermark: f.highWatermark, Source: "stateTopic", DeliveryCountLimit: f.deliveryLimit,
		Records: []cluster.ShareRecord{}, Truncated: f.persisted.Truncated,
	}
	if out.StartOffset < 0 && f.persisted.Found {
		out.StartOffset, out.EndOffset = f.persisted.StartOffset, f.persisted.StartOffset
	}
	if out.StartOffset < 0 {
		return out
	}
	batches := f.persisted.Batches
	if n := len(batches); n > 0 {
		out.EndOffset = max(out.EndOffset, batches[n-1].LastOffset+1)
	}
	if from < 0 {
		from = out.StartOffset
	}
	out.Settled = settledRecords(f.persisted.Settled, f.deliveryLimit, from, min(out.StartOffset, from+int64(limit)))
	for o := max(from, out.StartOffset); o < from+int64(limit) && o < f.highWatermark; o++ {
		for len(batches) > 0 && batches[0].LastOffset < o {
			batches = batches[1:]
		}
		r := cluster.ShareRecord{Offset: o, State: "available"}
		if len(batches) > 0 && batches[0].FirstOffset <= o {
			r.DeliveryCount = int32(batches[0].DeliveryCount)
			switch batches[0].DeliveryState {
			case inspect.ShareStateAcknowledged:
				r.State = "acknowledged"
			case inspect.ShareStateArchived:
				r.State, r.Why = "archived", cluster.ArchivedWhy(r.DeliveryCount, f.deliveryLimit)
			}
		}
		switch {
		case f.undeliverable[o] && r.State == "archived":
			// a marker acquired with its batch and acknowledged as a
			// gap: counted once, delivered to no one, not rejected
			r.Why = "notDelivered"
		case f.undeliverable[o] && r.State == "available" && o < out.EndOffset:
			// fetched past, so archived in the leader's memory; the
			// state topic holds it once the start offset moves on
			r.State, r.Why, r.DeliveryCount = "archived", "notDelivered", 0
		case r.State == "available" && f.assigned:
			r.State = "inFlight"
		}
		out.Records = append(out.Records, r)
	}
	return out
}

// settledRecords are the offsets [from, to) of the persisted runs a start
// offset passed, one record per offset.
func settledRecords(runs []inspect.ShareStateBatch, deliveryLimit int32, from, to int64) []cluster.ShareRecord {
	var out []cluster.ShareRecord
	for _, b := range runs {
		for o := max(b.FirstOffset, from); o <= b.LastOffset && o < to; o++ {
			r := cluster.ShareRecord{Offset: o, State: "available", DeliveryCount: int32(b.DeliveryCount)}
			switch b.DeliveryState {
			case inspect.ShareStateAcknowledged:
				r.State = "acknowledged"
			case inspect.ShareStateArchived:
				r.State, r.Why = "archived", cluster.ArchivedWhy(r.DeliveryCount, deliveryLimit)
			}
			out = append(out, r)
		}
	}
	return out
}

// MaxShareLanes is how many share groups' lanes a partition's live feed
// carries: the first, by name, of those with state on the partition.
const MaxShareLanes = 4

// ShareLanes is, for each share group with state on the partition (at
// most MaxShareLanes), its window [from, from+limit): what the live feed
// streams under the log (live.ShareSource).
func (s feedSource) ShareLanes(ctx context.Context, topic string, partition int32, from int64, limit int) ([]cluster.SharePartition, error) {
	names, err := s.l.cluster.ShareGroupsOn(ctx, topic, partition)
	if err != nil {
		return nil, err
	}
	lanes := []cluster.SharePartition{}
	for _, g := range names {
		if len(lanes) == MaxShareLanes {
			break
		}
		sp, err := s.l.SharePartition(ctx, topic, partition, g, from, limit)
		if err != nil || sp.StartOffset < 0 {
			continue
		}
		lanes = append(lanes, sp)
	}
	return lanes, nil
}
