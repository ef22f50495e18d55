package exercises

import (
	"context"
	"time"

	"github.com/offsetlab/offsetlab/internal/catalog"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// CheckResult is one check of one student.
type CheckResult struct {
	Key string `json:"key"`
	Verdict
}

// Result is one student's checks of one exercise.
type Result struct {
	Name      string        `json:"name"`
	Done      bool          `json:"done"`
	Checks    []CheckResult `json:"checks"`
	CheckedAt time.Time     `json:"checkedAt"`
}

// Grade checks what the broker holds of a student's attempt at ex, from
// offset from of their topic on: each rule reads what it needs, each read
// done once. A broker error fails the checks that needed the read, with
// the error's sentence as the hint; Grade itself never fails.
func Grade(ctx context.Context, broker Broker, ex Exercise, student string, from int64) Result {
	return grade(ctx, broker, ex, student, from, nil)
}

// grade is Grade after a write of the exercise's jobs that failed with
// writeErr (nil: none failed): the checks that read the jobs fail with
// its sentence.
func grade(ctx context.Context, broker Broker, ex Exercise, student string, from int64, writeErr error) Result {
	ev := &evaluation{ctx: ctx, broker: broker, names: ex.NamesFor(student), from: from, writeErr: writeErr}
	res := Result{Name: student, Done: true, CheckedAt: time.Now()}
	for _, c := range ex.Checks {
		v, err := c.Rule.check(ev)
		if err != nil {
			v = Verdict{Hint: brokerHint(err)}
		}
		res.Done = res.Done && v.OK
		res.Checks = append(res.Checks, CheckResult{Key: c.Key, Verdict: v})
	}
	nameProducers(ev, res.Checks)
	return res
}

// nameProducers puts beside each producer id of the checks' evidence its
// name on the student's partition page (P1 …), read once and only when
// some evidence has a producer; without names (a read that failed, a
// producer past the names) the ids stand alone.
func nameProducers(ev *evaluation, checks []CheckResult) {
	need := false
	for _, c := range checks {
		need = need || c.Evidence.ProducerID != nil || c.Evidence.Marker != nil
	}
	if !need {
		return
	}
	names, err := ev.broker.ProducerAliases(ev.ctx, ev.names.Topic, 0)
	if err != nil || len(names) == 0 {
		return
	}
	for i := range checks {
		e := &checks[i].Evidence
		if e.ProducerID != nil {
			e.ProducerAlias = names[*e.ProducerID]
		}
		if e.Marker != nil {
			e.Marker.ProducerAlias = names[e.Marker.ProducerID]
		}
	}
}

// brokerHint is the sentence of a broker's error.
func brokerHint(err error) catalog.Message { return problem.As(err).Message }
