package exercises

// ConsecutiveSequences checks that the first idempotent producer's
// records carry sequence numbers 0, 1, 2, … with no gap or repeat, at
// least Min of them: the broker accepted each batch once, in order.
type ConsecutiveSequences struct{ Min int }

// Kind implements Rule.
func (ConsecutiveSequences) Kind() string { return "consecutive-sequences" }

func (r ConsecutiveSequences) check(ev *evaluation) (Verdict, error) {
	entries, _, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	var e Evidence
	pid := int64(-1)
	want := int32(0)
	for _, rec := range data(entries) {
		if pid < 0 {
			if rec.ProducerID < 0 {
				return fail(e, "noProducerId", "offset", itoa(rec.Offset)), nil
			}
			pid = rec.ProducerID
			e.ProducerID, e.ProducerEpoch = ptr(rec.ProducerID), ptr(rec.ProducerEpoch)
		}
		if rec.ProducerID != pid {
			continue
		}
		e.Offsets = append(e.Offsets, rec.Offset)
		e.Sequences = append(e.Sequences, rec.Sequence)
		if rec.Sequence != want {
			return fail(e, "sequenceGap", "offset", itoa(rec.Offset), "want", itoa(want), "got", itoa(rec.Sequence)), nil
		}
		want++
	}
	if int(want) < r.Min {
		return fail(e, "tooFew", "want", itoa(r.Min), "got", itoa(want), "topic", ev.names.Topic), nil
	}
	return pass(e), nil
}
