package exercises

// zombie: two processes with one transactional id — the first begins a
// transaction and writes, the second initialises (the coordinator raises
// the epoch and aborts the first's transaction) and commits, the first's
// late write is refused.
func zombie() Exercise {
	return Exercise{
		ID:    "zombie",
		Steps: 4,
		Checks: []Check{
			{Key: "fenced", Rule: FencedTransaction{}},
			{Key: "noZombieWrite", Rule: NoZombieWrite{}},
		},
	}
}
