package exercises

// GroupAtInputEnd checks that the student's group committed, on the
// shared Input topic's partition 0, its log end offset: every input
// record processed, and its offset committed with the output (in the
// transaction, by send_offsets_to_transaction).
type GroupAtInputEnd struct{ Input string }

// Kind implements Rule.
func (GroupAtInputEnd) Kind() string { return "group-at-input-end" }

func (r GroupAtInputEnd) check(ev *evaluation) (Verdict, error) {
	_, ptrs, err := ev.sharedEntries(r.Input)
	if err != nil {
		return Verdict{}, err
	}
	g, err := ev.groupInfo()
	if err != nil {
		return Verdict{}, err
	}
	e := Evidence{LogEnd: ptr(ptrs.HighWatermark)}
	committed := int64(-1)
	if g != nil {
		for _, o := range g.Offsets {
			if o.Topic == r.Input && o.Partition == 0 {
				committed = o.Committed
			}
		}
	}
	if committed < 0 {
		return fail(e, "noGroupOffset", "group", ev.names.Group, "topic", r.Input), nil
	}
	e.CommittedOffset = ptr(committed)
	if committed != ptrs.HighWatermark {
		return fail(e, "groupBehind", "committed", itoa(committed), "logEnd", itoa(ptrs.HighWatermark)), nil
	}
	return pass(e), nil
}
