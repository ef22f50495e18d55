package exercises

// NoZombieWrite checks that once a higher epoch of a producer id wrote,
// no record of a lower epoch followed it (the fenced process's late write
// was refused), and that the coordinator holds the transactional id at
// the highest epoch the log shows.
type NoZombieWrite struct{}

// Kind implements Rule.
func (NoZombieWrite) Kind() string { return "no-zombie-write" }

func (NoZombieWrite) check(ev *evaluation) (Verdict, error) {
	entries, _, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	var e Evidence
	highest := map[int64]int16{}
	for _, rec := range data(entries) {
		if !rec.Transactional {
			continue
		}
		e.Offsets = append(e.Offsets, rec.Offset)
		if len(e.Epochs) == 0 || e.Epochs[len(e.Epochs)-1] != rec.ProducerEpoch {
			e.Epochs = append(e.Epochs, rec.ProducerEpoch)
		}
		if h, ok := highest[rec.ProducerID]; ok && rec.ProducerEpoch < h {
			return fail(e, "zombieWrite", "offset", itoa(rec.Offset), "epoch", itoa(rec.ProducerEpoch), "newer", itoa(h)), nil
		}
		highest[rec.ProducerID] = rec.ProducerEpoch
	}
	if len(e.Epochs) < 2 {
		return fail(e, "oneEpoch"), nil
	}
	t, err := ev.transaction()
	if err != nil {
		return Verdict{}, err
	}
	if t == nil {
		return fail(e, "unknownTransactionalId", "id", ev.names.TransactionalID), nil
	}
	e.ProducerID, e.CoordinatorEpoch = ptr(t.ProducerID), ptr(t.ProducerEpoch)
	if t.ProducerEpoch < highest[t.ProducerID] {
		return fail(e, "coordinatorBehind", "epoch", itoa(t.ProducerEpoch)), nil
	}
	return pass(e), nil
}
