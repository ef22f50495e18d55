package exercises

import "github.com/offsetlab/offsetlab/internal/inspect"

// ReadCommittedView checks what a read_committed consumer of the
// student's topic receives, as the inspector decides it from the markers
// and the last stable offset: at least Min records, and, with
// SkipsAborted, none of the aborted records that exist.
type ReadCommittedView struct {
	Min          int
	SkipsAborted bool
}

// Kind implements Rule.
func (ReadCommittedView) Kind() string { return "read-committed-view" }

func (r ReadCommittedView) check(ev *evaluation) (Verdict, error) {
	entries, ptrs, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	e := Evidence{Received: receivedCommitted(entries), LogEnd: ptr(ptrs.HighWatermark)}
	var aborted []int64
	for _, rec := range data(entries) {
		if rec.Txn == inspect.TxnAborted {
			aborted = append(aborted, rec.Offset)
		}
	}
	if len(e.Received) < r.Min {
		if ptrs.LastStableOffset < ptrs.HighWatermark {
			return fail(e, "stopsAtOpen", "lso", itoa(ptrs.LastStableOffset), "got", itoa(len(e.Received))), nil
		}
		return fail(e, "receivesFew", "want", itoa(r.Min), "got", itoa(len(e.Received))), nil
	}
	if r.SkipsAborted {
		e.Offsets = aborted
		if len(aborted) == 0 {
			return fail(e, "noAbortedRecords"), nil
		}
	}
	return pass(e), nil
}
