package exercises

import "github.com/offsetlab/offsetlab/internal/cluster"

// PoisonRejected checks, in the student's share group, that the poison
// job was rejected: archived by the consumer's REJECT while its delivery
// count is still below the group's delivery limit. Accepting it, or
// releasing it (or letting its lock expire) until the broker archives it
// at the delivery limit, fails with a sentence naming which.
type PoisonRejected struct{}

// Kind implements Rule.
func (PoisonRejected) Kind() string { return "poison-rejected" }

func (PoisonRejected) check(ev *evaluation) (Verdict, error) {
	run, err := ev.jobRun()
	if err != nil {
		return Verdict{}, err
	}
	e := Evidence{LogEnd: ptr(run.logEnd)}
	if run.poison < 0 {
		return fail(e, "noJobs", "topic", ev.names.Topic), nil
	}
	if !run.started {
		return fail(e, "noShareGroup", "group", ev.names.Group, "topic", ev.names.Topic), nil
	}
	r, ok := run.states[run.poison]
	if !ok {
		r = cluster.ShareRecord{Offset: run.poison, State: "available"}
	}
	e.Offsets = []int64{run.poison}
	e.Poison = &ShareRecordRef{Offset: run.poison, State: r.State, DeliveryCount: r.DeliveryCount, Why: r.Why}
	offset, count := itoa(run.poison), itoa(r.DeliveryCount)
	switch {
	case r.State == "acknowledged":
		return fail(e, "poisonAccepted", "offset", offset), nil
	case r.State == "archived" && r.Why == "rejected":
		return pass(e), nil
	case r.State == "archived" && r.Why == "deliveryLimit":
		return fail(e, "poisonDeliveryLimit", "offset", offset, "count", count), nil
	case r.State == stateForgotten:
		return fail(e, "jobsForgotten", "offsets", offset), nil
	case r.DeliveryCount > 1:
		return fail(e, "poisonRedelivered", "offset", offset, "count", count), nil
	}
	return fail(e, "poisonUnfinished", "offset", offset), nil
}
