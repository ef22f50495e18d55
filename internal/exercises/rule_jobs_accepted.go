package exercises

// JobsAccepted checks, in the student's share group, that every job the
// server wrote to their topic except the poison one was delivered once
// and acknowledged (accepted): not archived (rejected, or released until
// the delivery limit), not left acquired or available, not delivered
// again before it was accepted.
type JobsAccepted struct{}

// Kind implements Rule.
func (JobsAccepted) Kind() string { return "jobs-accepted" }

func (JobsAccepted) check(ev *evaluation) (Verdict, error) {
	run, err := ev.jobRun()
	if err != nil {
		return Verdict{}, err
	}
	e := Evidence{LogEnd: ptr(run.logEnd)}
	if len(run.jobs) == 0 {
		return fail(e, "noJobs", "topic", ev.names.Topic), nil
	}
	if !run.started {
		return fail(e, "noShareGroup", "group", ev.names.Group, "topic", ev.names.Topic), nil
	}
	var redelivered, forgotten []int64
	for _, j := range run.jobs {
		if j.Offset == run.poison {
			continue
		}
		e.Offsets = append(e.Offsets, j.Offset)
		r := run.states[j.Offset]
		switch r.State {
		case "acknowledged":
			e.Acknowledged = append(e.Acknowledged, j.Offset)
			if r.DeliveryCount > 1 {
				redelivered = append(redelivered, j.Offset)
			}
		case "archived":
			e.Archived = append(e.Archived, j.Offset)
		case stateForgotten:
			forgotten = append(forgotten, j.Offset)
		default:
			e.Unfinished = append(e.Unfinished, j.Offset)
		}
	}
	switch {
	case len(e.Archived) > 0:
		return fail(e, "jobsArchived", "offsets", spans(e.Archived)), nil
	case len(e.Unfinished) > 0:
		return fail(e, "jobsUnfinished", "offsets", spans(e.Unfinished)), nil
	case len(forgotten) > 0:
		return fail(e, "jobsForgotten", "offsets", spans(forgotten)), nil
	case len(redelivered) > 0:
		return fail(e, "jobsRedelivered", "offsets", spans(redelivered)), nil
	}
	return pass(e), nil
}

// spans are offsets as runs, "0–5, 7–9", for a sentence.
func spans(offsets []int64) string {
	var out []byte
	for i := 0; i < len(offsets); {
		j := i
		for j+1 < len(offsets) && offsets[j+1] == offsets[j]+1 {
			j++
		}
		if len(out) > 0 {
			out = append(out, ", "...)
		}
		out = append(out, itoa(offsets[i])...)
		if j > i {
			out = append(out, "–"...)
			out = append(out, itoa(offsets[j])...)
		}
		i = j + 1
	}
	return string(out)
}
