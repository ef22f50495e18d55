package exercises

import "github.com/offsetlab/offsetlab/internal/inspect"

// EachInputOnce checks that a read_committed consumer of the student's
// topic receives exactly one record for each record of the shared Input
// topic, matched by key (as many records of a key as the input holds):
// nothing lost, nothing twice, whatever crashed in between.
type EachInputOnce struct{ Input string }

// Kind implements Rule.
func (EachInputOnce) Kind() string { return "each-input-once" }

func (r EachInputOnce) check(ev *evaluation) (Verdict, error) {
	input, _, err := ev.sharedEntries(r.Input)
	if err != nil {
		return Verdict{}, err
	}
	entries, _, err := ev.entries()
	if err != nil {
		return Verdict{}, err
	}
	want := map[string]int{} // key → how many input records carry it
	var order []string
	for _, e := range data(input) {
		if e.ReadCommitted {
			if want[keyOf(e)] == 0 {
				order = append(order, keyOf(e))
			}
			want[keyOf(e)]++
		}
	}
	e := Evidence{Received: receivedCommitted(entries)}
	if len(want) == 0 {
		return fail(e, "noInput", "topic", r.Input), nil
	}
	seen := map[string][]int64{}
	for _, en := range data(entries) {
		if en.ReadCommitted {
			seen[keyOf(en)] = append(seen[keyOf(en)], en.Offset)
		}
	}
	for _, k := range order {
		switch offsets := seen[k]; {
		case len(offsets) < want[k]:
			return fail(e, "missingInput", "key", k, "topic", r.Input), nil
		case len(offsets) > want[k]:
			e.Offsets = offsets
			return fail(e, "inputTwice", "key", k, "first", itoa(offsets[0]), "second", itoa(offsets[1])), nil
		}
	}
	for k, offsets := range seen {
		if want[k] == 0 {
			e.Offsets = offsets
			return fail(e, "notAnInput", "key", k, "offset", itoa(offsets[0]), "topic", r.Input), nil
		}
	}
	return pass(e), nil
}

// keyOf is a record's key as text, "" for a null key.
func keyOf(e inspect.Entry) string {
	if e.Key == nil {
		return ""
	}
	return *e.Key
}
