package exercises

// NoDuplicates checks that at least Min records were written and that no
// record repeats an earlier one (same key and value): the copy a retry
// without idempotence leaves after a lost acknowledgement.
type NoDuplicates struct{ Min int }

// Kind implements Rule.
func (NoDuplicates) Kind() string { return "no-duplicates" }

func (r NoDuplicates) check(ev *evaluation) (Verdict, error) {
	entries, _, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	records := data(entries)
	var e Evidence
	for _, rec := range records {
		e.Offsets = append(e.Offsets, rec.Offset)
	}
	for _, rec := range records {
		if rec.DuplicateOf != nil {
			return fail(e, "duplicate", "offset", itoa(rec.Offset), "of", itoa(*rec.DuplicateOf)), nil
		}
	}
	if len(records) < r.Min {
		return fail(e, "tooFew", "want", itoa(r.Min), "got", itoa(len(records)), "topic", ev.names.Topic), nil
	}
	return pass(e), nil
}
