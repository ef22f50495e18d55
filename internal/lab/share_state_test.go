package lab

import (
	"testing"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// TestShareFromStateTopicUndeliverable: what Kafka's lane showed for the
// auditors' read_committed share group of lesson 9 (payouts: an aborted
// payout at 0, its ABORT marker at 1, payout 2 at 2, a COMMIT marker at
// 3), the state topic holding only offsets 1 and 2. The aborted record,
// fetched past, is archived and never delivered, not "in flight"; the
// marker, acquired with its batch and acknowledged as a gap, was not
// rejected by anyone. Under read_uncommitted the aborted record is a
// record like any other.
func TestShareFromStateTopicUndeliverable(t *testing.T) {
	t.Parallel()
	entries := []inspect.Entry{
		{Offset: 0, Kind: "data", Txn: "aborted", Transactional: true},
		{Offset: 1, Kind: "control", Control: true, Marker: "ABORT", Txn: "aborted"},
		{Offset: 2, Kind: "data", Txn: "committed", Transactional: true},
		{Offset: 3, Kind: "control", Control: true, Marker: "COMMIT", Txn: "committed"},
	}
	facts := func(readCommitted bool) shareFacts {
		return shareFacts{
			group: "auditors", topic: "payouts", start: 0, highWatermark: 4, assigned: true, deliveryLimit: 5,
			readCommitted: readCommitted, undeliverable: undeliverable(entries, readCommitted),
			persisted: inspect.PersistedShareState{Found: true, StartOffset: 0, Batches: []inspect.ShareStateBatch{
				{FirstOffset: 1, LastOffset: 1, DeliveryState: inspect.ShareStateArchived, DeliveryCount: 1},
				{FirstOffset: 2, LastOffset: 2, DeliveryState: inspect.ShareStateAcknowledged, DeliveryCount: 1},
			}},
		}
	}
	for _, tt := range []struct {
		readCommitted bool
		want          []string // state/why/count per offset 0..3
	}{
		{true, []string{"archived/notDelivered/0", "archived/notDelivered/1", "acknowledged//1", "inFlight//0"}},
		{false, []string{"inFlight//0", "archived/notDelivered/1", "acknowledged//1", "inFlight//0"}},
	} {
		sp := shareFromStateTopic(facts(tt.readCommitted), -1, 10)
		var got []string
		for _, r := range sp.Records {
			got = append(got, r.State+"/"+r.Why+"/"+string(rune('0'+r.DeliveryCount)))
		}
		if len(got) != len(tt.want) {
			t.Fatalf("read_committed=%v: %v, want %v", tt.readCommitted, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("read_committed=%v: offset %d is %s, want %s", tt.readCommitted, i, got[i], tt.want[i])
			}
		}
	}
}
