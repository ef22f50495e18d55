package exercises

import "github.com/offsetlab/offsetlab/internal/inspect"

// GroupPastMarker checks that the student's group committed, on their
// topic's partition 0, the log end offset: past the trailing transaction
// marker, so its offset lag is 0. A consumer that commits the last
// record's offset + 1 by hand lands on the marker instead (lag 1, with
// nothing left to read).
type GroupPastMarker struct{}

// Kind implements Rule.
func (GroupPastMarker) Kind() string { return "group-past-marker" }

func (GroupPastMarker) check(ev *evaluation) (Verdict, error) {
	entries, ptrs, err := ev.entries()
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
			if o.Topic == ev.names.Topic && o.Partition == 0 {
				committed = o.Committed
			}
		}
	}
	if committed < 0 {
		return fail(e, "noGroupOffset", "group", ev.names.Group, "topic", ev.names.Topic), nil
	}
	e.CommittedOffset = ptr(committed)
	if committed == ptrs.HighWatermark && committed > ev.from {
		return pass(e), nil
	}
	for _, en := range entries {
		if en.Offset == committed && en.Kind == inspect.KindControl {
			e.Marker = markerOf(en)
			return fail(e, "onMarker", "committed", itoa(committed), "logEnd", itoa(ptrs.HighWatermark)), nil
		}
	}
	return fail(e, "groupBehind", "committed", itoa(committed), "logEnd", itoa(ptrs.HighWatermark)), nil
}
