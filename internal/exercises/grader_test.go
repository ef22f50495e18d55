package exercises

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestGraderLive: once the teacher starts an exercise, a student's commit
// turns their result done without anyone asking, Wait wakes on it, and a
// reset makes the earlier attempt no longer count.
func TestGraderLive(t *testing.T) {
	cr := newClassroom(t)
	ann, bob := cr.join(t, "ann"), cr.join(t, "bob")
	g := NewGrader(cr.lab, cr.class, GraderConfig{Interval: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { g.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	ex, err := g.Start("commit")
	if err != nil {
		t.Fatal(err)
	}
	n := ex.NamesFor(ann.Name)
	inTransaction(t, client(t, ann, kgo.TransactionalID(n.TransactionalID)), n.Topic, true, "a", "b", "c")

	results := waitFor(t, g, func(rs []Result) bool { return rs[0].Done })
	if results[1].Done || results[1].Name != bob.Name {
		t.Errorf("bob wrote nothing but is %+v", results[1])
	}
	if got := verdicts(results[0]); got != "committed=ok readCommitted=ok" {
		t.Errorf("ann: %s", got)
	}
	from, err := g.Reset(context.Background(), "commit")
	if err != nil {
		t.Fatal(err)
	}
	if from[ann.Name] != 4 || from[bob.Name] != 0 {
		t.Errorf("reset from %v, want ann 4 (three records and a marker), bob 0", from)
	}
	results = waitFor(t, g, func(rs []Result) bool { return !rs[0].Done && len(rs[0].Checks) == 2 && rs[0].Checks[0].Hint.Key != "" })
	if got := verdicts(results[0]); got != "committed=tooFew readCommitted=receivesFew" {
		t.Errorf("ann after the reset: %s", got)
	}
}

// waitFor waits on the grader until cond holds for the current
// exercise's results.
func waitFor(t *testing.T, g *Grader, cond func([]Result) bool) []Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		rs, version, err := g.Results(g.Current())
		if err != nil {
			t.Fatal(err)
		}
		if cond(rs) {
			return rs
		}
		if ctx.Err() != nil {
			t.Fatalf("gave up waiting; results %+v", rs)
		}
		g.Wait(ctx, version)
	}
}
