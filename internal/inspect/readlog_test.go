package inspect

import (
	"testing"

	"github.com/offsetlab/offsetlab/internal/problem"
)

// want is the expected shape of one entry.
type want struct {
	kind, marker, txn string
	rc, ru            bool
	reason            string // of a gap
}

func checkEntries(t *testing.T, log *Log, from int64, wants []want) {
	t.Helper()
	if got := len(log.Entries); got != len(wants) {
		for _, e := range log.Entries {
			t.Logf("%d %s %s %s rc=%v ru=%v", e.Offset, e.Kind, e.Marker, e.Txn, e.ReadCommitted, e.ReadUncommitted)
		}
		t.Fatalf("got %d entries, want %d", got, len(wants))
	}
	for i, w := range wants {
		e := log.Entries[i]
		got := want{e.Kind, e.Marker, e.Txn, e.ReadCommitted, e.ReadUncommitted, e.Reason}
		if e.Offset != from+int64(i) || got != w {
			t.Errorf("entry %d: got offset %d %+v, want offset %d %+v", i, e.Offset, got, from+int64(i), w)
		}
	}
}

var (
	dataNone      = want{KindData, "", TxnNone, true, true, ""}
	dataNoneAbove = want{KindData, "", TxnNone, false, true, ""} // at or past the LSO
	dataCommitted = want{KindData, "", TxnCommitted, true, true, ""}
	dataAborted   = want{KindData, "", TxnAborted, false, true, ""}
	dataOpen      = want{KindData, "", TxnOpen, false, true, ""}
	commitMarker  = want{KindControl, MarkerCommit, TxnCommitted, false, false, ""}
	abortMarker   = want{KindControl, MarkerAbort, TxnAborted, false, false, ""}
	gapCompacted  = want{KindGap, "", TxnNone, false, false, GapCompacted}
	gapDeleted    = want{KindGap, "", TxnNone, false, false, GapBeforeLogStart}
	gapUnknown    = want{KindGap, "", TxnNone, false, false, GapUnknown}
)

func TestReadLogTransactions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		steps []step
		ptrs  Pointers
		want  []want
	}{
		{
			name:  "non-transactional",
			steps: []step{produce("plain", "a"), produce("raw", "b"), produce("plain", "c")},
			ptrs:  Pointers{0, 3, 3},
			want:  []want{dataNone, dataNone, dataNone},
		},
		{
			name:  "committed",
			steps: []step{begin("tx1", "a"), produce("tx1", "b"), commit("tx1")},
			ptrs:  Pointers{0, 3, 3},
			want:  []want{dataCommitted, dataCommitted, commitMarker},
		},
		{
			name:  "aborted",
			steps: []step{begin("tx1", "a"), abort("tx1")},
			ptrs:  Pointers{0, 2, 2},
			want:  []want{dataAborted, abortMarker},
		},
		{
			name:  "open",
			steps: []step{produce("plain", "a"), begin("tx1", "b"), produce("tx1", "c")},
			ptrs:  Pointers{0, 1, 3},
			want:  []want{dataNone, dataOpen, dataOpen},
		},
		{
			name: "non-transactional write inside an open transaction",
			steps: []step{
				produce("plain", "p0"),
				begin("tx1", "c1"), commit("tx1"),
				begin("tx2", "a1"), abort("tx2"),
				begin("tx3", "o1"),
				produce("plain", "p1"),
			},
			ptrs: Pointers{0, 5, 7},
			want: []want{dataNone, dataCommitted, commitMarker, dataAborted, abortMarker, dataOpen, dataNoneAbove},
		},
		{
			name: "interleaved producers resolved later",
			steps: []step{
				begin("tx1", "a"), begin("tx2", "b"), produce("plain", "c"),
				produce("tx1", "d"), abort("tx2"), commit("tx1"),
			},
			ptrs: Pointers{0, 6, 6},
			want: []want{dataCommitted, dataAborted, dataNone, dataCommitted, abortMarker, commitMarker},
		},
		{
			name: "aborted transaction ending after an open one began",
			steps: []step{
				begin("tx1", "a"), begin("tx2", "b"), abort("tx1"),
			},
			// tx2 holds the LSO at 1: tx1's record at 0 is below it,
			// its marker at 2 above it.
			ptrs: Pointers{0, 1, 3},
			want: []want{dataAborted, dataOpen, abortMarker},
		},
		{
			name: "second transaction of the same producer",
			steps: []step{
				begin("tx1", "a"), abort("tx1"), begin("tx1", "b"), commit("tx1"),
				begin("tx1", "c"),
			},
			ptrs: Pointers{0, 4, 5},
			want: []want{dataAborted, abortMarker, dataCommitted, commitMarker, dataOpen},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.run(tt.steps...)
			log := e.readAll()
			if log.Pointers != tt.ptrs {
				t.Errorf("pointers: got %+v, want %+v", log.Pointers, tt.ptrs)
			}
			checkEntries(t, log, 0, tt.want)
		})
	}
}

func TestReadLogResolvesWhenMarkerArrives(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.run(produce("plain", "p0"), begin("tx1", "o1"), produce("plain", "p1"))
	checkEntries(t, e.readAll(), 0, []want{dataNone, dataOpen, dataNoneAbove})
	e.run(commit("tx1"))
	log := e.readAll()
	if want := (Pointers{0, 4, 4}); log.Pointers != want {
		t.Errorf("pointers: got %+v, want %+v", log.Pointers, want)
	}
	checkEntries(t, log, 0, []want{dataNone, dataCommitted, dataNone, commitMarker})
}

func TestReadLogErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testCtx(t)
	tests := []struct {
		name      string
		topic     string
		partition int32
		want      string // the problem's catalogue key
	}{
		{"unknown topic", "nope", 0, "error.unknownTopic"},
		{"unknown partition", testTopic, 7, "error.unknownPartition"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.ins.ReadLog(ctx, tt.topic, tt.partition, 0, 10)
			if !problem.Is(err, tt.want) {
				t.Errorf("ReadLog: got %v, want %v", err, tt.want)
			}
			_, err = e.ins.Pointers(ctx, tt.topic, tt.partition)
			if !problem.Is(err, tt.want) {
				t.Errorf("Pointers: got %v, want %v", err, tt.want)
			}
			_, err = e.ins.ReadRecords(ctx, tt.topic, tt.partition, ReadCommitted, 0, 10)
			if !problem.Is(err, tt.want) {
				t.Errorf("ReadRecords: got %v, want %v", err, tt.want)
			}
		})
	}
}
