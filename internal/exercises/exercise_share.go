package exercises

// share: a queue (KIP-932 share groups). The server writes ten jobs to
// the student's topic, the seventh of them the poison job; the student's
// share consumer, in their share group, accepts every job once and
// rejects the poison one, which the broker then archives at once instead
// of delivering it again until the delivery limit. Starters in Java
// (KafkaShareConsumer) and Go (franz-go): confluent-kafka's share
// consumer is still a preview.
func share() Exercise {
	return Exercise{
		ID:    "share",
		Steps: 4,
		Jobs:  &Jobs{Count: 10, Poison: 7},
		Checks: []Check{
			{Key: "jobsAccepted", Rule: JobsAccepted{}},
			{Key: "poisonRejected", Rule: PoisonRejected{}},
		},
	}
}
