package embedded

import "github.com/offsetlab/offsetlab/internal/cluster"

// SharePartition is the broker's exact state of group on topic/partition
// for the offsets [from, from+limit); false when the group has no state
// there. It copies at most limit offsets, however many are in flight.
func (b *broker) SharePartition(group, topic string, partition int32, from int64, limit int) (cluster.SharePartition, bool) {
	s, ok := b.fake.SharePartitionState(group, topic, partition, from, limit)
	if !ok {
		return cluster.SharePartition{}, false
	}
	out := cluster.SharePartition{
		Group: group, Topic: topic, Partition: partition,
		StartOffset: s.StartOffset, EndOffset: s.EndOffset, HighWatermark: s.HighWatermark,
		Source: "broker", DeliveryCountLimit: s.DeliveryCountLimit, LockMillis: s.LockDuration.Milliseconds(),
		Records: []cluster.ShareRecord{},
	}
	for _, t := range s.Settled {
		r := cluster.ShareRecord{Offset: t.Offset, State: t.State, DeliveryCount: t.DeliveryCount}
		if t.State == "archived" {
			r.Why = cluster.ArchivedWhy(t.DeliveryCount, s.DeliveryCountLimit)
		}
		out.Settled = append(out.Settled, r)
	}
	tracked := s.Records
	for o := max(from, s.StartOffset); o < from+int64(limit) && o < s.HighWatermark; o++ {
		r := cluster.ShareRecord{Offset: o, State: "available"}
		if len(tracked) > 0 && tracked[0].Offset == o {
			t := tracked[0]
			tracked = tracked[1:]
			r.State, r.DeliveryCount = t.State, t.DeliveryCount
			switch t.State {
			case "acquired":
				r.Member = t.Member
				at := t.AcquiredAt.Add(s.LockDuration)
				r.LockExpiresAt = &at
			case "archived":
				r.Why = cluster.ArchivedWhy(t.DeliveryCount, s.DeliveryCountLimit)
			}
		}
		out.Records = append(out.Records, r)
	}
	return out, true
}
