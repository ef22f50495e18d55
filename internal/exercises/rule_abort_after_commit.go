package exercises

// AbortAfterCommit checks that after a committed transaction the same
// producer's next transaction wrote records and ended with an ABORT
// marker.
type AbortAfterCommit struct{}

// Kind implements Rule.
func (AbortAfterCommit) Kind() string { return "abort-after-commit" }

func (AbortAfterCommit) check(ev *evaluation) (Verdict, error) {
	entries, _, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	txns := transactions(entries)
	first := -1
	for i, t := range txns {
		if t.committed() && len(t.records) > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		return fail(Evidence{}, "noCommitFirst"), nil
	}
	commit := txns[first]
	for _, t := range txns[first+1:] {
		if t.producerID != commit.producerID || len(t.records) == 0 {
			continue
		}
		e := transactionEvidence(t)
		switch {
		case t.aborted():
			return pass(e), nil
		case t.committed():
			return fail(e, "commitMarker", "offset", itoa(t.marker.Offset)), nil
		default:
			return fail(e, "openTransaction", "offset", itoa(t.first())), nil
		}
	}
	return fail(transactionEvidence(commit), "noSecondTransaction", "offset", itoa(commit.marker.Offset)), nil
}
