package inspect

import "testing"

func TestMarkDuplicates(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	data := func(o int64, k, v *string) Entry { return Entry{Offset: o, Kind: KindData, Key: k, Value: v} }
	entries := []Entry{
		data(0, s("k"), s("event-1001")),
		{Offset: 1, Kind: KindControl, Marker: MarkerCommit},
		data(2, s("k"), s("event-1001")), // the lost ACK's retry
		data(3, nil, s("event-1001")),    // another key: not a twin
		data(4, s("k"), s("event-1001")),
		data(5, nil, nil),
		data(6, nil, nil),
		{Offset: 7, Kind: KindData, Key: s("k"), Value: s("event-1001"), ValueTruncated: true},
	}
	MarkDuplicates(entries)
	want := map[int64]int64{2: 0, 4: 2, 6: 5}
	for _, e := range entries {
		w, dup := want[e.Offset]
		switch {
		case dup && (e.DuplicateOf == nil || *e.DuplicateOf != w):
			t.Errorf("offset %d: duplicateOf %v, want %d", e.Offset, e.DuplicateOf, w)
		case !dup && e.DuplicateOf != nil:
			t.Errorf("offset %d: duplicateOf %d, want none", e.Offset, *e.DuplicateOf)
		}
	}
}
