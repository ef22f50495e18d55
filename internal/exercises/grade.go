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
	ev := &evaluation{ctx: ctx, broker: broker, names: ex.NamesFor(student), from: from}
	res := Result{Name: student, Done: true, CheckedAt: time.Now()}
	for _, c := range ex.Checks {
		v, err := c.Rule.check(ev)
		if err != nil {
			v = Verdict{Hint: brokerHint(err)}
		}
		res.Done = res.Done && v.OK
		res.Checks = append(res.Checks, CheckResult{Key: c.Key, Verdict: v})
	}
	return res
}

// brokerHint is the sentence of a broker's error.
func brokerHint(err error) catalog.Message { return problem.As(err).Message }
