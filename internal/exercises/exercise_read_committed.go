package exercises

// readCommitted: a committed transaction, then a read_committed consumer
// of the student's group that commits after processing — its committed
// offset is past the trailing COMMIT marker (offset lag 0, not 1).
func readCommitted() Exercise {
	return Exercise{
		ID:    "read-committed",
		Steps: 3,
		Checks: []Check{
			{Key: "committed", Rule: CommittedTransaction{Records: 1}},
			{Key: "groupPastMarker", Rule: GroupPastMarker{}},
		},
	}
}
