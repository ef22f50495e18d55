package exercises

// FencedTransaction checks the log of a zombie fenced by its successor:
// a transaction with records ended by an ABORT marker (the coordinator
// aborted the first process's transaction when the second one, with the
// same transactional id, initialised), then a committed transaction of
// the same producer id at a higher epoch.
type FencedTransaction struct{}

// Kind implements Rule.
func (FencedTransaction) Kind() string { return "fenced-transaction" }

func (FencedTransaction) check(ev *evaluation) (Verdict, error) {
	entries, _, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	txns := transactions(entries)
	for i, t := range txns {
		if !t.aborted() || len(t.records) == 0 {
			continue
		}
		fenced := t.records[0].ProducerEpoch
		for _, later := range txns[i+1:] {
			if !later.committed() || len(later.records) == 0 {
				continue
			}
			e := transactionEvidence(t)
			e.Epochs = []int16{fenced, later.records[0].ProducerEpoch}
			if later.producerID != t.producerID {
				return fail(e, "otherProducer", "offset", itoa(later.records[0].Offset), "producerId", itoa(later.producerID), "want", itoa(t.producerID)), nil
			}
			if later.records[0].ProducerEpoch <= fenced {
				return fail(e, "epochNotRaised", "offset", itoa(later.records[0].Offset), "epoch", itoa(fenced)), nil
			}
			return pass(e), nil
		}
		return fail(transactionEvidence(t), "noSuccessorCommit", "offset", itoa(t.marker.Offset)), nil
	}
	return fail(Evidence{}, "noFencedAbort"), nil
}
