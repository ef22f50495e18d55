package exercises

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/inspect"
)

// TestShareVerdicts runs the share exercise right and wrong with franz-go
// share consumers logged in as students of a classroom's embedded
// broker, after the server wrote each student's jobs, and asserts the
// verdicts and the hints that name the cause.
func TestShareVerdicts(t *testing.T) {
	cr := newClassroom(t)
	ex, _ := Find("share")
	right := func(r *kgo.Record) kgo.AckStatus {
		if string(r.Value) == PoisonValue {
			return kgo.AckReject
		}
		return kgo.AckAccept
	}
	tests := []struct {
		name  string
		jobs  bool
		run   func(t *testing.T, s Student, n Names)
		want  string
		check func(t *testing.T, r Result)
	}{
		{"right", true, func(t *testing.T, s Student, n Names) {
			shareConsume(t, s, n, everyJobOnce, right)
		}, "jobsAccepted=ok poisonRejected=ok", func(t *testing.T, r Result) {
			e := r.Checks[1].Evidence
			if e.Poison == nil || e.Poison.Offset != 6 || e.Poison.State != "archived" || e.Poison.DeliveryCount != 1 || e.Poison.Why != "rejected" {
				t.Errorf("poison evidence %+v, want offset 6 archived once, rejected", e.Poison)
			}
			if got := r.Checks[0].Evidence.Acknowledged; len(got) != 9 {
				t.Errorf("acknowledged %v, want the nine jobs", got)
			}
		}},
		{"poison accepted", true, func(t *testing.T, s Student, n Names) {
			shareConsume(t, s, n, everyJobOnce, func(*kgo.Record) kgo.AckStatus { return kgo.AckAccept })
		}, "jobsAccepted=ok poisonRejected=poisonAccepted", nil},
		{"poison released until the delivery limit", true, func(t *testing.T, s Student, n Names) {
			shareConsume(t, s, n, func(seen map[string]int) bool { return seen[PoisonValue] >= 5 }, func(r *kgo.Record) kgo.AckStatus {
				if string(r.Value) == PoisonValue {
					return kgo.AckRelease
				}
				return kgo.AckAccept
			})
		}, "jobsAccepted=ok poisonRejected=poisonDeliveryLimit", nil},
		{"never acknowledged", true, func(t *testing.T, s Student, n Names) {
			shareConsume(t, s, n, func(seen map[string]int) bool { return len(seen) > 0 }, func(*kgo.Record) kgo.AckStatus { return 0 })
		}, "jobsAccepted=jobsUnfinished poisonRejected=poisonUnfinished", nil},
		{"everything rejected", true, func(t *testing.T, s Student, n Names) {
			shareConsume(t, s, n, everyJobOnce, func(*kgo.Record) kgo.AckStatus { return kgo.AckReject })
		}, "jobsAccepted=jobsArchived poisonRejected=ok", nil},
		{"no consumer", true, func(t *testing.T, s Student, n Names) {}, "jobsAccepted=noShareGroup poisonRejected=noShareGroup", nil},
		{"no jobs", false, func(t *testing.T, s Student, n Names) {}, "jobsAccepted=noJobs poisonRejected=noJobs", nil},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := cr.join(t, "q"+itoa(i)+"x")
			if tt.jobs {
				writeJobs(t, cr, ex, s.Name)
			}
			tt.run(t, s, ex.NamesFor(s.Name))
			r := gradeUntil(t, cr.lab, ex, s.Name, tt.want)
			if tt.check != nil {
				tt.check(t, r)
			}
		})
	}
}

// TestGraderWritesJobs: once the teacher starts the share exercise, the
// grader writes each student's jobs (job-1 … job-10, the seventh the
// poison one) without anyone asking, grades a right consumer done, and
// writes ten new jobs after a reset.
func TestGraderWritesJobs(t *testing.T) {
	cr := newClassroom(t)
	ann := cr.join(t, "ann")
	g := NewGrader(cr.lab, cr.class, GraderConfig{Interval: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { g.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	ex, err := g.Start("share")
	if err != nil {
		t.Fatal(err)
	}
	n := ex.NamesFor(ann.Name)
	waitFor(t, g, func(rs []Result) bool { return rs[0].Checks[0].Hint.Key == "exercise.hint.noShareGroup" })
	log, err := cr.lab.Log(context.Background(), n.Topic, 0, 0, 20)
	if err != nil {
		t.Fatal(err)
	}
	if got := values(log.Entries); got != "job-1 job-2 job-3 job-4 job-5 job-6 poison job-8 job-9 job-10" {
		t.Fatalf("the grader wrote %q", got)
	}
	shareConsume(t, ann, n, everyJobOnce, func(r *kgo.Record) kgo.AckStatus {
		if string(r.Value) == PoisonValue {
			return kgo.AckReject
		}
		return kgo.AckAccept
	})
	waitFor(t, g, func(rs []Result) bool { return rs[0].Done })

	from, err := g.Reset(context.Background(), "share")
	if err != nil {
		t.Fatal(err)
	}
	if from[ann.Name] != 10 {
		t.Errorf("reset from %v, want ann 10", from)
	}
	waitFor(t, g, func(rs []Result) bool { return rs[0].Checks[0].Hint.Key == "exercise.hint.jobsUnfinished" })
	p, err := cr.lab.Pointers(context.Background(), n.Topic, 0)
	if err != nil || p.HighWatermark != 20 {
		t.Errorf("after the reset the topic ends at %d (%v), want 20: ten new jobs", p.HighWatermark, err)
	}
}

// writeJobs writes the exercise's jobs to the student's new topic, as the
// grader does.
func writeJobs(t *testing.T, cr *classroom, ex Exercise, student string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := WriteJobs(ctx, cr.lab, ex, student, 0, inspect.Pointers{}); err != nil {
		t.Fatal(err)
	}
}

// everyJobOnce is true once all ten jobs were seen.
func everyJobOnce(seen map[string]int) bool { return len(seen) == 10 }

// shareConsume runs a franz-go share consumer of the student's share
// group on their topic until done says so (given how often each value
// was delivered) or a poll brings nothing for 3 s, acknowledging each
// record as decide says (0: not at all), then flushes the
// acknowledgements. The client stays open until the test ends.
func shareConsume(t *testing.T, s Student, n Names, done func(seen map[string]int) bool, decide func(*kgo.Record) kgo.AckStatus) {
	t.Helper()
	cl := client(t, s, kgo.ShareGroup(n.Group), kgo.ConsumeTopics(n.Topic))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seen := map[string]int{}
	for !done(seen) && ctx.Err() == nil {
		pctx, pcancel := context.WithTimeout(ctx, 3*time.Second)
		recs := cl.PollFetches(pctx).Records()
		pcancel()
		if len(recs) == 0 && len(seen) > 0 {
			break
		}
		for _, r := range recs {
			seen[string(r.Value)]++
			if st := decide(r); st != 0 {
				r.Ack(st)
			}
		}
	}
	if !done(seen) {
		t.Fatalf("the share consumer saw %v", seen)
	}
	if err := cl.FlushAcks(ctx); err != nil {
		t.Fatal(err)
	}
}

// values are the data records' values, space-separated.
func values(entries []inspect.Entry) string {
	var out string
	for _, e := range data(entries) {
		if out != "" {
			out += " "
		}
		if e.Value != nil {
			out += *e.Value
		}
	}
	return out
}
