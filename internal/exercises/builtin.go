package exercises

// Builtin are the exercises, in the order a class does them: the seeds'
// guarantees one at a time, each done with the student's own client,
// then a queue read by a share consumer.
func Builtin() []Exercise {
	return []Exercise{
		idempotent(),
		commit(),
		abort(),
		readCommitted(),
		exactlyOnce(),
		zombie(),
		share(),
	}
}
