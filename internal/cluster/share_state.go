package cluster

import (
	"time"
)

// ShareRecord is one offset of a share-partition (KIP-932): its delivery
// state, how many times it was delivered, and who holds it.
type ShareRecord struct {
	Offset int64 `json:"offset"`
	// State is "available", "acquired", "acknowledged" or "archived";
	// on real Kafka also "inFlight": available or acquired by a consumer
	// the dashboard does not run (Kafka keeps acquisition locks in the
	// leader's memory and tells no one).
	State         string `json:"state"`
	DeliveryCount int32  `json:"deliveryCount"`
	// Member is the member id holding an acquired record.
	Member string `json:"member,omitempty"`
	// Worker names the dashboard's own share consumer holding it
	// (internal/lab's workers), which the lab knows on both brokers.
	Worker string `json:"worker,omitempty"`
	// LockExpiresAt is when an acquired record's lock expires.
	LockExpiresAt *time.Time `json:"lockExpiresAt,omitempty"`
	// Why says why an archived record was archived, as its delivery
	// count tells: "deliveryLimit" (delivered as often as the group
	// allows), "rejected" (fewer deliveries: a consumer rejected it) or
	// "notDelivered" (never delivered: a transaction marker, an aborted
	// transaction's record under read_committed, or a gap).
	Why string `json:"why,omitempty"`
}

// SharePartition is one share group's delivery state on one partition:
// the share-partition start offset (SPSO), end offset (SPEO) and a window
// of offsets.
type SharePartition struct {
	Group     string `json:"group"`
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	// StartOffset is the SPSO: every offset below it is acknowledged
	// or archived. -1 when the group has not read the partition.
	StartOffset int64 `json:"startOffset"`
	// EndOffset is the SPEO: one past the highest offset delivered.
	// On real Kafka it is what the state topic shows (offsets
	// delivered and not yet settled are not written there), so it may
	// lag the broker's own.
	EndOffset     int64 `json:"endOffset"`
	HighWatermark int64 `json:"highWatermark"`
	// Source says where the states come from: "broker" (the embedded
	// broker's own, exact) or "stateTopic" (Kafka's __share_group_state,
	// replayed, with the group's start offset and members).
	Source             string `json:"source"`
	DeliveryCountLimit int32  `json:"deliveryCountLimit"`
	// LockMillis is how long an acquisition lock lasts (embedded).
	LockMillis int64 `json:"lockMillis,omitempty"`
	// Records are the offsets of the window from max(from, StartOffset)
	// to min(from+limit, HighWatermark).
	Records []ShareRecord `json:"records"`
	// Settled are the offsets of the window below StartOffset whose
	// final state the broker still tells (acknowledged or archived,
	// with the delivery count and, archived, Why): the embedded broker
	// keeps the last 1,000 its start offset passed; on Kafka they are
	// what the state topic wrote before the start offset moved. An
	// accepted record and a rejected one are both below the start
	// offset once a group finished them: only these tell them apart.
	Settled []ShareRecord `json:"settled,omitempty"`
	// Truncated says the state topic was read only up to its budget.
	Truncated bool `json:"truncated,omitempty"`
}

// ArchivedWhy is ShareRecord.Why for an archived record delivered count
// times under a delivery limit of limit.
func ArchivedWhy(count, limit int32) string {
	switch {
	case count == 0:
		return "notDelivered"
	case limit > 0 && count >= limit:
		return "deliveryLimit"
	}
	return "rejected"
}
