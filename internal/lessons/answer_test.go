package lessons

import (
	"testing"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// TestProducerCell: the coordinator's state is drawn at the first record
// of the producer's open transaction, else at its last marker, never at
// another producer's cells.
func TestProducerCell(t *testing.T) {
	t.Parallel()
	data := func(o, pid int64, txn string) inspect.Entry {
		return inspect.Entry{Offset: o, Kind: inspect.KindData, ProducerID: pid, Txn: txn}
	}
	marker := func(o, pid int64, m string) inspect.Entry {
		return inspect.Entry{Offset: o, Kind: inspect.KindControl, ProducerID: pid, Marker: m, Txn: inspect.TxnCommitted}
	}
	// Lesson 2 after the crash: O-1 committed, O-2 open; then another
	// producer's open record after it.
	crashed := []inspect.Entry{data(0, 7, inspect.TxnCommitted), marker(1, 7, "COMMIT"), data(2, 7, inspect.TxnOpen), data(3, 9, inspect.TxnOpen)}
	// After the restart: the fence's ABORT, O-2 and O-3 committed.
	restarted := []inspect.Entry{data(0, 7, inspect.TxnCommitted), marker(1, 7, "COMMIT"), data(2, 7, inspect.TxnAborted), marker(3, 7, "ABORT"),
		data(4, 7, inspect.TxnCommitted), marker(5, 7, "COMMIT"), data(6, 7, inspect.TxnCommitted), marker(7, 7, "COMMIT")}
	tests := []struct {
		name       string
		entries    []inspect.Entry
		pid        int64
		open       bool
		wantOffset int64
		wantAnchor string
		wantFound  bool
	}{
		{"ongoing: its first open record", crashed, 7, true, 2, AnchorOpen, true},
		{"another producer's open record", crashed, 9, true, 3, AnchorOpen, true},
		{"finished: its last marker", restarted, 7, false, 7, AnchorMarker, true},
		{"ongoing with nothing open here: its last marker", restarted, 7, true, 7, AnchorMarker, true},
		{"a producer that never wrote here", restarted, 8, true, 0, "", false},
		{"an open record is no marker", []inspect.Entry{data(0, 9, inspect.TxnOpen)}, 9, false, 0, "", false},
	}
	for _, tt := range tests {
		offset, anchor, found := producerCell(tt.entries, tt.pid, tt.open)
		if offset != tt.wantOffset || anchor != tt.wantAnchor || found != tt.wantFound {
			t.Errorf("%s: got %d %q %v, want %d %q %v", tt.name, offset, anchor, found, tt.wantOffset, tt.wantAnchor, tt.wantFound)
		}
	}
}
