package exercises

// idempotent: five records with enable.idempotence=true — a producer id,
// sequences 0…4, no duplicate — and then a lost acknowledgement the
// student provokes (a short request.timeout.ms) still leaves one copy.
func idempotent() Exercise {
	return Exercise{
		ID:    "idempotent",
		Steps: 3,
		Checks: []Check{
			{Key: "producerId", Rule: ProducerIDs{Min: 5}},
			{Key: "sequences", Rule: ConsecutiveSequences{Min: 5}},
			{Key: "noDuplicate", Rule: NoDuplicates{Min: 5}},
		},
	}
}
