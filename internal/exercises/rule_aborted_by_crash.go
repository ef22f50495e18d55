package exercises

// AbortedByCrash checks that the student's topic holds a transaction with
// records ended by an ABORT marker: the one a kill -9 left open, which
// the restarted processor's init_transactions (or the coordinator's
// timeout) aborted.
type AbortedByCrash struct{}

// Kind implements Rule.
func (AbortedByCrash) Kind() string { return "aborted-by-crash" }

func (AbortedByCrash) check(ev *evaluation) (Verdict, error) {
	entries, _, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	for _, t := range transactions(entries) {
		if t.aborted() && len(t.records) > 0 {
			return pass(transactionEvidence(t)), nil
		}
	}
	return fail(Evidence{}, "noCrashAbort"), nil
}
