package exercises

import "github.com/offsetlab/offsetlab/internal/inspect"

// transaction is one transaction of a producer as the log shows it: its
// data records, in offset order, and the marker that ended it (nil while
// it is open, or when the marker lies past the window read).
type transaction struct {
	producerID int64
	records    []inspect.Entry
	marker     *inspect.Entry
}

// first is the offset the transaction starts at.
func (t transaction) first() int64 {
	if len(t.records) > 0 {
		return t.records[0].Offset
	}
	return t.marker.Offset
}

// offsets are the transaction's data offsets.
func (t transaction) offsets() []int64 {
	out := make([]int64, 0, len(t.records))
	for _, r := range t.records {
		out = append(out, r.Offset)
	}
	return out
}

// committed reports whether a COMMIT marker ended it.
func (t transaction) committed() bool {
	return t.marker != nil && t.marker.Marker == inspect.MarkerCommit
}

// aborted reports whether an ABORT marker ended it.
func (t transaction) aborted() bool { return t.marker != nil && t.marker.Marker == inspect.MarkerAbort }

// transactions groups the transactional records of entries by producer
// into transactions, each ended by its producer's next marker, ordered by
// where they end (open ones last, by where they start). A marker with no
// record before it in the window (the coordinator aborting a transaction
// that wrote nothing here) is a transaction of no records.
func transactions(entries []inspect.Entry) []transaction {
	open := map[int64]*transaction{}
	var order []int64 // producers with an open transaction, by first record
	var done []transaction
	for _, e := range entries {
		switch {
		case e.Kind == inspect.KindData && e.Transactional:
			t := open[e.ProducerID]
			if t == nil {
				t = &transaction{producerID: e.ProducerID}
				open[e.ProducerID] = t
				order = append(order, e.ProducerID)
			}
			t.records = append(t.records, e)
		case e.Kind == inspect.KindControl && (e.Marker == inspect.MarkerCommit || e.Marker == inspect.MarkerAbort):
			t := open[e.ProducerID]
			if t == nil {
				t = &transaction{producerID: e.ProducerID}
			} else {
				delete(open, e.ProducerID)
			}
			m := e
			t.marker = &m
			done = append(done, *t)
		}
	}
	for _, pid := range order {
		if t := open[pid]; t != nil {
			done = append(done, *t)
		}
	}
	return done
}
