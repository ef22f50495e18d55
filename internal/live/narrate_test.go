package live

import (
	"strings"
	"testing"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

func data(offset, pid int64, txn string) inspect.Entry {
	v := "v"
	return inspect.Entry{Offset: offset, Kind: inspect.KindData, Txn: txn, ProducerID: pid, Transactional: txn != inspect.TxnNone, Value: &v}
}

func marker(offset, pid int64, m string) inspect.Entry {
	txn := inspect.TxnCommitted
	if m == inspect.MarkerAbort {
		txn = inspect.TxnAborted
	}
	return inspect.Entry{Offset: offset, Kind: inspect.KindControl, Marker: m, Txn: txn, ProducerID: pid, Transactional: true, Control: true}
}

// TestNarrateMarkers: each marker names only the records it resolved —
// the seed's lesson-2 log arriving in one poll, and a marker for records
// seen open in an earlier poll.
func TestNarrateMarkers(t *testing.T) {
	t.Parallel()
	key := feedKey{"order-totals-tx", 0}
	tests := []struct {
		name    string
		changed []inspect.Entry
		before  map[int64]inspect.Entry
		want    []string
	}{
		{
			name: "lesson 2 in one poll",
			changed: []inspect.Entry{
				data(0, 7, inspect.TxnCommitted), marker(1, 7, inspect.MarkerCommit),
				data(2, 7, inspect.TxnAborted), marker(3, 7, inspect.MarkerAbort),
				data(4, 7, inspect.TxnCommitted), marker(5, 7, inspect.MarkerCommit),
			},
			before: map[int64]inspect.Entry{},
			want: []string{
				"Offset 1: COMMIT marker", "Offset 0 committed",
				"Offset 3: ABORT marker", "Offset 2 aborted",
				"Offset 5: COMMIT marker", "Offset 4 committed",
			},
		},
		{
			name:    "open record resolved later",
			changed: []inspect.Entry{data(2, 7, inspect.TxnAborted), marker(3, 7, inspect.MarkerAbort)},
			before:  map[int64]inspect.Entry{2: data(2, 7, inspect.TxnOpen)},
			want:    []string{"Offset 3: ABORT marker", "Offset 2 aborted: still in the log"},
		},
	}
	for _, tt := range tests {
		var texts []string
		for _, e := range narrate(key, tt.changed, tt.before) {
			if e.Kind == EventCommit || e.Kind == EventAbort {
				texts = append(texts, e.Text)
			}
		}
		all := strings.Join(texts, " | ")
		for _, w := range tt.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: narration %q lacks %q", tt.name, all, w)
			}
		}
		if tt.name == "lesson 2 in one poll" && (strings.Count(all, "Offsets") > 0 || len(texts) != 3) {
			t.Errorf("%s: markers claimed records of other transactions: %q", tt.name, all)
		}
	}
}
