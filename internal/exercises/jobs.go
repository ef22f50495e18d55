package exercises

import (
	"context"
	"slices"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/inspect"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// PoisonValue is the value of the poison job (Jobs): the one a student's
// consumer must reject.
const PoisonValue = "poison"

// Jobs are the records the server writes to each student's topic for an
// exercise whose consumer reads what it did not write (the share
// exercise): Count jobs, "job-1" … "job-<Count>", except the Poison-th
// (from 1), whose value is PoisonValue. The grader writes them once per
// attempt, when the student's topic holds nothing from the attempt's
// start (a new topic, or a reset), through Broker.WriteExerciseJobs.
type Jobs struct {
	Count  int
	Poison int
}

// Values are the jobs' record values, in the order they are written.
func (j Jobs) Values() []string {
	out := make([]string, 0, j.Count)
	for i := 1; i <= j.Count; i++ {
		v := "job-" + itoa(i)
		if i == j.Poison {
			v = PoisonValue
		}
		out = append(out, v)
	}
	return out
}

// WriteJobs writes ex's jobs for student when the attempt that starts at
// offset from has none yet: their topic is unknown or ends at from (ptrs,
// the grader's look at it). It does nothing for an exercise without
// jobs.
func WriteJobs(ctx context.Context, broker Broker, ex Exercise, student string, from int64, ptrs inspect.Pointers) error {
	if ex.Jobs == nil || ptrs.HighWatermark > from || ptrs.HighWatermark < 0 {
		return nil
	}
	n := ex.NamesFor(student)
	return broker.WriteExerciseJobs(ctx, n.Topic, n.Group, ex.Jobs.Values())
}

// jobRun is what the broker shows of a share exercise's attempt: its
// jobs in the log and their delivery states in the student's share group.
type jobRun struct {
	jobs   []inspect.Entry // the data records from the attempt's start
	poison int64           // the poison job's offset; -1 when there is none
	logEnd int64
	// started is false while the student's share group holds no state
	// on the topic.
	started bool
	states  map[int64]cluster.ShareRecord
}

// jobRun reads the attempt's jobs and their states, once per grading.
func (ev *evaluation) jobRun() (*jobRun, error) {
	if ev.jobs != nil || ev.jobsErr != nil {
		return ev.jobs, ev.jobsErr
	}
	ev.jobs, ev.jobsErr = ev.readJobRun()
	return ev.jobs, ev.jobsErr
}

func (ev *evaluation) readJobRun() (*jobRun, error) {
	if ev.writeErr != nil {
		return nil, ev.writeErr
	}
	entries, ptrs, err := ev.entries()
	if err != nil {
		return nil, err
	}
	run := &jobRun{jobs: data(entries), poison: -1, logEnd: ptrs.HighWatermark, states: map[int64]cluster.ShareRecord{}}
	for _, j := range run.jobs {
		if j.Value != nil && *j.Value == PoisonValue && run.poison < 0 {
			run.poison = j.Offset
		}
	}
	if len(run.jobs) == 0 {
		return run, nil
	}
	sp, err := ev.broker.SharePartition(ev.ctx, ev.names.Topic, 0, ev.names.Group, ev.from, maxOffsets)
	switch {
	case err != nil && (problem.Is(err, "error.unknownShareGroup") || problem.Is(err, "error.unknownTopic")):
		return run, nil
	case err != nil:
		return nil, err
	}
	if sp.StartOffset < 0 {
		return run, nil
	}
	run.started = true
	for _, r := range slices.Concat(sp.Settled, sp.Records) {
		run.states[r.Offset] = r
	}
	for _, j := range run.jobs {
		if _, ok := run.states[j.Offset]; !ok && j.Offset < sp.StartOffset {
			// Finished, but the broker no longer tells how.
			run.states[j.Offset] = cluster.ShareRecord{Offset: j.Offset, State: stateForgotten}
		}
	}
	return run, nil
}

// stateForgotten is a job below the share-partition start offset whose
// final state the broker no longer tells.
const stateForgotten = "forgotten"

// ShareRecordRef is one record's delivery state in a share group, as a
// check's evidence shows it.
type ShareRecordRef struct {
	Offset int64 `json:"offset"`
	// State is "available", "acquired", "acknowledged", "archived",
	// "inFlight" (real Kafka: delivered or not, the state topic does not
	// say) or "forgotten" (finished, how no longer told).
	State         string `json:"state"`
	DeliveryCount int32  `json:"deliveryCount"`
	// Why says why an archived record was (cluster.ArchivedWhy).
	Why string `json:"why,omitempty"`
}
