package exercises

// commit: one transaction of three records, committed — three data
// records and their producer's COMMIT marker, all three received by
// read_committed.
func commit() Exercise {
	return Exercise{
		ID:    "commit",
		Steps: 3,
		Checks: []Check{
			{Key: "committed", Rule: CommittedTransaction{Records: 3}},
			{Key: "readCommitted", Rule: ReadCommittedView{Min: 3}},
		},
	}
}
