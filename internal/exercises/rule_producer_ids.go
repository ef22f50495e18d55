package exercises

// ProducerIDs checks that at least Min records were written and that each
// carries a producer id: an idempotent (or transactional) producer's
// records do, a plain producer's have -1.
type ProducerIDs struct{ Min int }

// Kind implements Rule.
func (ProducerIDs) Kind() string { return "producer-ids" }

func (r ProducerIDs) check(ev *evaluation) (Verdict, error) {
	entries, _, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	records := data(entries)
	var e Evidence
	for _, rec := range records {
		e.Offsets = append(e.Offsets, rec.Offset)
	}
	if len(records) < r.Min {
		return fail(e, "tooFew", "want", itoa(r.Min), "got", itoa(len(records)), "topic", ev.names.Topic), nil
	}
	for _, rec := range records {
		if rec.ProducerID < 0 {
			return fail(e, "noProducerId", "offset", itoa(rec.Offset)), nil
		}
	}
	last := records[len(records)-1]
	e.ProducerID, e.ProducerEpoch = ptr(last.ProducerID), ptr(last.ProducerEpoch)
	return pass(e), nil
}
