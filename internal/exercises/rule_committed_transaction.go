package exercises

import "github.com/offsetlab/offsetlab/internal/inspect"

// CommittedTransaction checks that one transaction of at least Records
// data records ended with its producer's COMMIT marker.
type CommittedTransaction struct{ Records int }

// Kind implements Rule.
func (CommittedTransaction) Kind() string { return "committed-transaction" }

func (r CommittedTransaction) check(ev *evaluation) (Verdict, error) {
	entries, _, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	txns := transactions(entries)
	for _, t := range txns {
		if t.committed() && len(t.records) >= r.Records {
			return pass(transactionEvidence(t)), nil
		}
	}
	records := data(entries)
	if len(records) == 0 {
		return fail(Evidence{}, "tooFew", "want", itoa(r.Records), "got", "0", "topic", ev.names.Topic), nil
	}
	for _, rec := range records {
		if !rec.Transactional {
			return fail(Evidence{Offsets: []int64{rec.Offset}, ProducerID: ptr(rec.ProducerID)}, "notTransactional", "offset", itoa(rec.Offset)), nil
		}
	}
	return r.whyNot(txns), nil
}

// whyNot names what the transactions show instead of a commit: an abort,
// one still open, or a commit of too few records.
func (r CommittedTransaction) whyNot(txns []transaction) Verdict {
	for _, t := range txns {
		switch {
		case t.aborted() && len(t.records) > 0:
			return fail(transactionEvidence(t), "abortMarker", "offset", itoa(t.marker.Offset))
		case t.marker == nil:
			return fail(transactionEvidence(t), "openTransaction", "offset", itoa(t.first()))
		case t.committed() && len(t.records) > 0:
			return fail(transactionEvidence(t), "fewInTransaction", "want", itoa(r.Records), "got", itoa(len(t.records)), "offset", itoa(t.marker.Offset))
		}
	}
	return fail(Evidence{}, "tooFew", "want", itoa(r.Records), "got", "0", "topic", "")
}

// transactionEvidence is t's offsets, producer and marker.
func transactionEvidence(t transaction) Evidence {
	e := Evidence{Offsets: t.offsets(), ProducerID: ptr(t.producerID)}
	if len(t.records) > 0 {
		e.ProducerEpoch = ptr(t.records[0].ProducerEpoch)
	}
	if t.marker != nil {
		e.Marker = markerOf(*t.marker)
	}
	return e
}

// receivedCommitted are the offsets a read_committed consumer receives.
func receivedCommitted(entries []inspect.Entry) []int64 {
	var out []int64
	for _, e := range entries {
		if e.Kind == inspect.KindData && e.ReadCommitted {
			out = append(out, e.Offset)
		}
	}
	return out
}
