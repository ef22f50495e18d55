package exercises

// abort: a committed transaction, then an aborted one of the same
// producer — an ABORT marker — and read_committed receives only the
// first.
func abort() Exercise {
	return Exercise{
		ID:    "abort",
		Steps: 3,
		Checks: []Check{
			{Key: "committedFirst", Rule: CommittedTransaction{Records: 1}},
			{Key: "abortedSecond", Rule: AbortAfterCommit{}},
			{Key: "readCommitted", Rule: ReadCommittedView{Min: 1, SkipsAborted: true}},
		},
	}
}
