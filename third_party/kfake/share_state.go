package kfake

import "time"

// SharePartitionState is a read-only snapshot of one share group's
// delivery state on one partition (KIP-932): its start offset (SPSO), the
// end of its in-flight window (SPEO) and the tracked offsets of a window.
type SharePartitionState struct {
	// StartOffset is the share-partition start offset: every offset
	// below it is acknowledged or archived and no longer tracked.
	StartOffset int64
	// EndOffset is one past the highest offset the group has acquired
	// (the share-partition end offset); StartOffset when it has
	// acquired nothing at or above StartOffset.
	EndOffset int64
	// HighWatermark is the partition's high watermark.
	HighWatermark int64
	// LockDuration is how long an acquisition lock lasts.
	LockDuration time.Duration
	// DeliveryCountLimit is how many deliveries a record gets before it
	// is archived.
	DeliveryCountLimit int32
	// Records are the tracked offsets of the window asked for, ascending.
	// An offset between StartOffset and EndOffset that is not listed was
	// never acquired (available) or holds no record (a gap).
	Records []ShareRecordInfo
	// Settled are the offsets of the window below StartOffset whose
	// final state the partition still keeps (the last 1,000 that SPSO
	// moved past), ascending: acknowledged or archived, with their
	// delivery counts.
	Settled []ShareRecordInfo
}

// ShareRecordInfo is one tracked offset of a share-partition.
type ShareRecordInfo struct {
	Offset int64
	// State is "available", "acquired", "acknowledged" or "archived".
	State         string
	DeliveryCount int32
	// Member is the member id holding an acquired record.
	Member string
	// AcquiredAt is when an acquired record's lock was taken; the lock
	// expires LockDuration later.
	AcquiredAt time.Time
}

// SharePartitionState returns a snapshot of group's state on
// topic/partition for the offsets [from, from+limit), and false when the
// group has no state there. It copies at most limit records, whatever
// the number in flight.
func (c *Cluster) SharePartitionState(group, topic string, partition int32, from int64, limit int) (*SharePartitionState, bool) {
	var s *SharePartitionState
	c.admin(func() {
		g := c.shareGroups.get(group)
		if g == nil {
			return
		}
		sp, ok := g.partitions.getp(topic, partition)
		if !ok {
			return
		}
		s = &SharePartitionState{
			StartOffset:        sp.spso,
			EndOffset:          max(sp.acquireEnd, sp.spso),
			LockDuration:       time.Duration(c.shareRecordLockDurationMs(group)) * time.Millisecond,
			DeliveryCountLimit: c.shareMaxDeliveryAttempts(group),
		}
		if pd, ok := c.data.tps.getp(topic, partition); ok {
			s.HighWatermark = pd.highWatermark
		}
		for o := max(from, sp.spso-maxSettled); o < sp.spso && o < from+int64(limit); o++ {
			if sr, ok := sp.settled[o]; ok {
				s.Settled = append(s.Settled, ShareRecordInfo{Offset: o, State: sr.state.String(), DeliveryCount: sr.deliveryCount})
			}
		}
		for o := max(from, sp.spso); o < s.EndOffset && o < from+int64(limit); o++ {
			sr, ok := sp.records[o]
			if !ok {
				continue
			}
			s.Records = append(s.Records, ShareRecordInfo{
				Offset: o, State: sr.state.String(), DeliveryCount: sr.deliveryCount,
				Member: sr.acquiredBy, AcquiredAt: sr.acquireTime,
			})
		}
	})
	return s, s != nil
}

// String names a record state as KIP-932 does.
func (s shareRecordState) String() string {
	switch s {
	case shareRecordAvailable:
		return "available"
	case shareRecordAcquired:
		return "acquired"
	case shareRecordAcknowledged:
		return "acknowledged"
	case shareRecordArchived:
		return "archived"
	}
	return "unknown"
}
