package live

import (
	"maps"
	"slices"
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

// TestNarrateKeys: every narrated sentence names its catalogue key
// (web/static/i18n, "narration.") and the arguments that fill it.
func TestNarrateKeys(t *testing.T) {
	t.Parallel()
	key := feedKey{"order-totals-tx", 0}
	plain := data(0, -1, inspect.TxnNone)
	null := data(1, -1, inspect.TxnNone)
	null.Value = nil
	open := data(2, 7, inspect.TxnOpen)
	open.ProducerEpoch = 3
	events := narrate(key, []inspect.Entry{plain, null, open}, map[int64]inspect.Entry{})
	want := []struct {
		key  string
		args map[string]string
	}{
		{"narration.write.plain", map[string]string{"offset": "0", "value": "'v'"}},
		{"narration.write.plain", map[string]string{"offset": "1", "valueKey": "narration.value.null"}},
		{"narration.write.open", map[string]string{"offset": "2", "value": "'v'", "producer": "7", "epoch": "3"}},
	}
	check := func(name string, got []Event, want []struct {
		key  string
		args map[string]string
	}) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d events, want %d: %+v", name, len(got), len(want), got)
		}
		for i, w := range want {
			if got[i].Key != w.key || !maps.Equal(got[i].Args, w.args) {
				t.Errorf("%s: event %d has key %q args %v, want %q %v (text %q)", name, i, got[i].Key, got[i].Args, w.key, w.args, got[i].Text)
			}
			if got[i].Text == "" {
				t.Errorf("%s: event %d lost its English text", name, i)
			}
		}
	}
	check("writes", events, want)

	// A marker with no, one and several resolved records.
	markers := narrate(key, []inspect.Entry{
		marker(3, 7, inspect.MarkerCommit),
		data(4, 8, inspect.TxnAborted), marker(5, 8, inspect.MarkerAbort),
	}, map[int64]inspect.Entry{})
	markers = slices.DeleteFunc(markers, func(e Event) bool { return e.Kind == EventWrite })
	check("markers", markers, []struct {
		key  string
		args map[string]string
	}{
		{"narration.commit", map[string]string{"offset": "3", "producer": "7", "epoch": "0"}},
		{"narration.abort.one", map[string]string{"offset": "5", "producer": "8", "epoch": "0", "offsets": "4"}},
	})
	// 6 and 7 were seen open and are resolved now, 8 is new.
	many := narrate(key, []inspect.Entry{data(6, 7, inspect.TxnCommitted), data(7, 7, inspect.TxnCommitted), data(8, 7, inspect.TxnCommitted), marker(9, 7, inspect.MarkerCommit)},
		map[int64]inspect.Entry{6: data(6, 7, inspect.TxnOpen), 7: data(7, 7, inspect.TxnOpen)})
	many = slices.DeleteFunc(many, func(e Event) bool { return e.Kind == EventWrite })
	check("marker resolving several", many, []struct {
		key  string
		args map[string]string
	}{
		{"narration.commit.many", map[string]string{"offset": "9", "producer": "7", "epoch": "0", "offsets": "6, 7, 8"}},
	})

	// A burst is summarised in one sentence.
	var burst []inspect.Entry
	for o := int64(10); o < 15; o++ {
		burst = append(burst, data(o, -1, inspect.TxnNone))
	}
	check("burst", narrate(key, burst, map[int64]inspect.Entry{}), []struct {
		key  string
		args map[string]string
	}{
		{"narration.writes", map[string]string{"count": "5", "first": "10", "last": "14", "log": "order-totals-tx-0"}},
	})
}

// TestNarrateLogStart: the story tells the log start moving up, by how
// much, and nothing when it stays or goes down (a topic made again).
func TestNarrateLogStart(t *testing.T) {
	t.Parallel()
	key := feedKey{"events", 0}
	tests := []struct {
		name           string
		before, now    inspect.Pointers
		want           int
		from, to, gone string
	}{
		{"delete-records moved it", inspect.Pointers{LogStartOffset: 0, HighWatermark: 6}, inspect.Pointers{LogStartOffset: 4, HighWatermark: 6}, 1, "0", "4", "4"},
		{"retention moved it again", inspect.Pointers{LogStartOffset: 4, HighWatermark: 8}, inspect.Pointers{LogStartOffset: 8, HighWatermark: 8}, 1, "4", "8", "4"},
		{"unchanged", inspect.Pointers{LogStartOffset: 4, HighWatermark: 6}, inspect.Pointers{LogStartOffset: 4, HighWatermark: 7}, 0, "", "", ""},
		{"down", inspect.Pointers{LogStartOffset: 4, HighWatermark: 6}, inspect.Pointers{LogStartOffset: 0, HighWatermark: 1}, 0, "", "", ""},
	}
	for _, tt := range tests {
		got := narrateLogStart(key, tt.before, tt.now)
		if len(got) != tt.want {
			t.Fatalf("%s: got %d events, want %d", tt.name, len(got), tt.want)
		}
		if tt.want == 0 {
			continue
		}
		e := got[0]
		if e.Key != "narration.logStart" || e.Args["from"] != tt.from || e.Args["to"] != tt.to || e.Args["count"] != tt.gone || e.Args["log"] != "events-0" {
			t.Errorf("%s: got %q %v", tt.name, e.Key, e.Args)
		}
		if !strings.Contains(e.Text, "moved from "+tt.from+" to "+tt.to) {
			t.Errorf("%s: text %q", tt.name, e.Text)
		}
	}
}

// TestLogStartMoves: the history's pointer steps give each move of the
// log start, and which move deleted an offset.
func TestLogStartMoves(t *testing.T) {
	t.Parallel()
	at := func(start, hw int64) Step {
		return Step{Message: Message{Type: TypePointers, Pointers: &inspect.Pointers{LogStartOffset: start, HighWatermark: hw}}}
	}
	h := History{Steps: []Step{at(0, 6), {Message: Message{Type: TypeEvent}}, at(4, 6), at(4, 8), at(8, 8)}}
	moves := h.LogStartMoves()
	if len(moves) != 2 || moves[0].From != 0 || moves[0].To != 4 || moves[1].From != 4 || moves[1].To != 8 {
		t.Fatalf("moves: %+v", moves)
	}
	for o, want := range map[int64]int64{0: 4, 3: 4, 4: 8, 7: 8} {
		if m := MoveOf(moves, o); m == nil || m.To != want {
			t.Errorf("offset %d: got %+v, want the move to %d", o, m, want)
		}
	}
	if m := MoveOf(moves, 8); m != nil {
		t.Errorf("offset 8: got %+v, want none", m)
	}
	// The topic made again: its history starts over.
	if got := (History{Steps: []Step{at(0, 6), at(4, 6), at(0, 1)}}).LogStartMoves(); len(got) != 0 {
		t.Errorf("after a re-creation: %+v", got)
	}
}

// TestNewsOnly: offsets below the last poll's high watermark that the
// tail no longer holds are not news — a read reaching back below the tail
// (a short read read again) must not tell their writes again — while a
// record of the tail whose transaction resolved, and every offset past the
// high watermark, are.
func TestNewsOnly(t *testing.T) {
	t.Parallel()
	before := map[int64]inspect.Entry{8: data(8, 5, inspect.TxnOpen), 9: data(9, 5, inspect.TxnOpen)}
	changed := []inspect.Entry{
		data(3, 5, inspect.TxnNone), // below the tail: told long ago
		data(8, 5, inspect.TxnCommitted),
		data(9, 5, inspect.TxnCommitted),
		marker(10, 5, inspect.MarkerCommit),
		data(11, 6, inspect.TxnNone),
	}
	var got []int64
	for _, e := range news(changed, 10, before) {
		got = append(got, e.Offset)
	}
	if want := []int64{8, 9, 10, 11}; !slices.Equal(got, want) {
		t.Fatalf("news: %v, want %v", got, want)
	}
	for _, e := range narrate(feedKey{"t", 0}, news(changed[:1], 10, before), before) {
		t.Errorf("an old offset told again: %s", e.Text)
	}
}
