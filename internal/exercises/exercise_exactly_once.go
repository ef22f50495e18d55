package exercises

// exactlyOnce: read the teacher's orders, write one total per order to
// the student's topic in transactions that also commit the group's offsets
// (send_offsets_to_transaction); kill -9 it mid-way and restart it: each
// order exactly once in read_committed, the group's offset at the orders'
// end, the killed transaction aborted.
func exactlyOnce() Exercise {
	return Exercise{
		ID:           "exactly-once",
		SharedTopics: []string{"orders"},
		Steps:        4,
		Checks: []Check{
			{Key: "killedAborted", Rule: AbortedByCrash{}},
			{Key: "eachOrderOnce", Rule: EachInputOnce{Input: "orders"}},
			{Key: "groupAtEnd", Rule: GroupAtInputEnd{Input: "orders"}},
		},
	}
}
