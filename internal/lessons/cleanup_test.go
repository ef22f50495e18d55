package lessons

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// createdRun starts lesson 1 on r and does its first step, which creates
// the run's topics.
func createdRun(t *testing.T, ctx context.Context, r *Runner) RunState {
	t.Helper()
	st, err := r.Start("1")
	if err != nil {
		t.Fatal(err)
	}
	if st, err = r.Next(ctx, st.ID); err != nil || st.Steps[0].Status != StepDone {
		t.Fatalf("step 1 of lesson 1: %+v, %v", st, err)
	}
	return st
}

func topicNames(t *testing.T, ctx context.Context, l Lab) []string {
	t.Helper()
	topics, err := l.Topics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tp := range topics {
		out = append(out, tp.Name)
	}
	return out
}

func sorted(names []string) []string {
	out := slices.Clone(names)
	slices.Sort(out)
	return out
}

// TestCleanupDeletesOnlyRecordedTopics: "Clean up lab topics" lists and
// deletes the topics lesson runs created — recorded in the data dir, so
// a restarted server still knows them — and never a team's topic whose
// name only looks like a lesson topic's (a lesson name, a dash, six hex
// digits). A confirmation naming such a topic is refused and deletes
// nothing; a fresh record knows no earlier runs.
func TestCleanupDeletesOnlyRecordedTopics(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := embedded.Start(embedded.Config{KafkaAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c})
	t.Cleanup(l.Close)
	record := filepath.Join(t.TempDir(), "lessons", "embedded", "created-topics.json")

	// A team's topics on the same cluster, named like every lesson topic
	// with a suffix of hex digits.
	var team []string
	for _, ls := range Builtin() {
		for _, name := range lessonTopics(&ls) {
			for _, suffix := range []string{"202612", "c0ffee", "decade"} {
				if n := name + "-" + suffix; !slices.Contains(team, n) {
					team = append(team, n)
				}
			}
		}
	}
	for _, name := range team {
		if _, err := l.CreateTopic(ctx, cluster.TopicSpec{Name: name, Partitions: 1}); err != nil {
			t.Fatal(err)
		}
	}

	first, err := Open(l, record)
	if err != nil {
		t.Fatal(err)
	}
	earlier := createdRun(t, ctx, first)
	first.Close()
	if _, err := os.Stat(record); err != nil {
		t.Fatalf("the record of created topics: %v", err)
	}

	// A restart: the new server reads the record.
	r, err := Open(l, record)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	another := createdRun(t, ctx, r)
	current := createdRun(t, ctx, r)
	wantDoomed := sorted(append(slices.Clone(earlier.Topics), another.Topics...))

	plan, err := r.CleanupPlan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := sorted(plan); !slices.Equal(got, wantDoomed) {
		t.Fatalf("CleanupPlan = %v, want the earlier runs' topics %v", got, wantDoomed)
	}
	if after := topicNames(t, ctx, l); len(after) != len(team)+3*len(current.Topics) {
		t.Fatalf("listing deleted something: %v", after)
	}

	for _, name := range []string{team[0], current.Topics[0], "orders-" + current.Suffix + "0"} {
		_, err := r.CleanupConfirmed(ctx, append(slices.Clone(plan), name))
		if problem.KindOf(err) != problem.Conflict || !problem.Is(err, "error.lessonCleanupNotListed") {
			t.Fatalf("confirming %s with the plan: %v, want a conflict naming a topic not listed", name, err)
		}
	}
	if after := topicNames(t, ctx, l); len(after) != len(team)+3*len(current.Topics) {
		t.Fatalf("a refused confirmation deleted something: %v", after)
	}

	deleted, err := r.CleanupConfirmed(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if got := sorted(deleted); !slices.Equal(got, wantDoomed) {
		t.Fatalf("CleanupConfirmed deleted %v, want %v", got, wantDoomed)
	}
	after := topicNames(t, ctx, l)
	for _, name := range append(slices.Clone(team), current.Topics...) {
		if !slices.Contains(after, name) {
			t.Errorf("cleanup deleted %s", name)
		}
	}
	for _, name := range wantDoomed {
		if slices.Contains(after, name) {
			t.Errorf("cleanup left %s", name)
		}
	}
	if again, err := r.CleanupAll(ctx); err != nil || len(again) != 0 {
		t.Fatalf("cleaning up again deleted %v, %v; want nothing", again, err)
	}

	// The current run's own cleanup deletes its topics, and a server with
	// a fresh record lists none of them.
	if _, err := r.Cleanup(ctx, current.ID); err != nil {
		t.Fatal(err)
	}
	after = topicNames(t, ctx, l)
	for _, name := range current.Topics {
		if slices.Contains(after, name) {
			t.Errorf("the run's cleanup left %s", name)
		}
	}
	fresh, err := Open(l, filepath.Join(t.TempDir(), "created-topics.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fresh.Close)
	if plan, err := fresh.CleanupPlan(ctx); err != nil || len(plan) != 0 {
		t.Fatalf("a fresh record plans %v, %v; want nothing", plan, err)
	}
	if len(topicNames(t, ctx, l)) != len(team) {
		t.Fatalf("the team's topics are not all left: %v", topicNames(t, ctx, l))
	}
	rec, err := loadTopicRecord(record)
	if err != nil || len(rec.list()) != 0 {
		t.Fatalf("the record after every topic went: %v, %v; want empty", rec.list(), err)
	}
}

// TestTopicRecordUnreadable: a record that is not JSON is an error of
// Open, not an empty record (which would forget earlier runs silently).
func TestTopicRecordUnreadable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "created-topics.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(nil, path); err == nil {
		t.Fatal("Open over a corrupt record succeeded")
	}
}
