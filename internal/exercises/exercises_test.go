package exercises

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// TestVerdicts runs each exercise right and wrong with franz-go clients
// logged in as students of a classroom's embedded broker, and asserts
// every check's verdict and the hint that names the cause.
func TestVerdicts(t *testing.T) {
	cr := newClassroom(t)
	tests := []struct {
		name     string
		exercise string
		run      func(t *testing.T, s Student, n Names)
		want     string
	}{
		{"idempotent right", "idempotent", func(t *testing.T, s Student, n Names) {
			produce(t, client(t, s), n.Topic, "r0", "r1", "r2", "r3", "r4")
		}, "producerId=ok sequences=ok noDuplicate=ok"},
		{"idempotence off", "idempotent", func(t *testing.T, s Student, n Names) {
			produce(t, client(t, s, kgo.DisableIdempotentWrite()), n.Topic, "r0", "r1", "r2", "r3", "r4")
		}, "producerId=noProducerId sequences=noProducerId noDuplicate=ok"},
		{"a record written twice", "idempotent", func(t *testing.T, s Student, n Names) {
			cl := client(t, s, kgo.DisableIdempotentWrite())
			produce(t, cl, n.Topic, "r0", "r1", "r2")
			produce(t, cl, n.Topic, "r2", "r3", "r4")
		}, "producerId=noProducerId sequences=noProducerId noDuplicate=duplicate"},
		{"commit right", "commit", func(t *testing.T, s Student, n Names) {
			inTransaction(t, client(t, s, kgo.TransactionalID(n.TransactionalID)), n.Topic, true, "a", "b", "c")
		}, "committed=ok readCommitted=ok"},
		{"commit aborted instead", "commit", func(t *testing.T, s Student, n Names) {
			inTransaction(t, client(t, s, kgo.TransactionalID(n.TransactionalID)), n.Topic, false, "a", "b", "c")
		}, "committed=abortMarker readCommitted=receivesFew"},
		{"commit without a transaction", "commit", func(t *testing.T, s Student, n Names) {
			produce(t, client(t, s), n.Topic, "a", "b", "c")
		}, "committed=notTransactional readCommitted=ok"},
		{"commit left open", "commit", func(t *testing.T, s Student, n Names) {
			cl := client(t, s, kgo.TransactionalID(n.TransactionalID))
			if err := cl.BeginTransaction(); err != nil {
				t.Fatal(err)
			}
			produce(t, cl, n.Topic, "a", "b", "c")
		}, "committed=openTransaction readCommitted=stopsAtOpen"},
		{"abort right", "abort", func(t *testing.T, s Student, n Names) {
			cl := client(t, s, kgo.TransactionalID(n.TransactionalID))
			inTransaction(t, cl, n.Topic, true, "first")
			inTransaction(t, cl, n.Topic, false, "second")
		}, "committedFirst=ok abortedSecond=ok readCommitted=ok"},
		{"abort committed twice", "abort", func(t *testing.T, s Student, n Names) {
			cl := client(t, s, kgo.TransactionalID(n.TransactionalID))
			inTransaction(t, cl, n.Topic, true, "first")
			inTransaction(t, cl, n.Topic, true, "second")
		}, "committedFirst=ok abortedSecond=commitMarker readCommitted=noAbortedRecords"},
		{"read-committed right", "read-committed", func(t *testing.T, s Student, n Names) {
			inTransaction(t, client(t, s, kgo.TransactionalID(n.TransactionalID)), n.Topic, true, "a", "b")
			commitGroup(t, s, n, 3) // the position: past the COMMIT marker at 2
		}, "committed=ok groupPastMarker=ok"},
		{"read-committed on the marker", "read-committed", func(t *testing.T, s Student, n Names) {
			inTransaction(t, client(t, s, kgo.TransactionalID(n.TransactionalID)), n.Topic, true, "a", "b")
			commitGroup(t, s, n, 2) // the last record's offset + 1: the marker
		}, "committed=ok groupPastMarker=onMarker"},
		{"read-committed no group", "read-committed", func(t *testing.T, s Student, n Names) {
			inTransaction(t, client(t, s, kgo.TransactionalID(n.TransactionalID)), n.Topic, true, "a", "b")
		}, "committed=ok groupPastMarker=noGroupOffset"},
		{"exactly-once right", "exactly-once", func(t *testing.T, s Student, n Names) {
			cl := client(t, s, kgo.TransactionalID(n.TransactionalID))
			inTransaction(t, cl, n.Topic, false, keyed("O-1")...) // the transaction kill -9 left open, aborted at restart
			inTransaction(t, cl, n.Topic, true, keyed("O-1", "O-2", "O-3")...)
			commitOffset(t, s, n.Group, "orders", 3)
		}, "killedAborted=ok eachOrderOnce=ok groupAtEnd=ok"},
		{"exactly-once twice and behind", "exactly-once", func(t *testing.T, s Student, n Names) {
			cl := client(t, s, kgo.TransactionalID(n.TransactionalID))
			inTransaction(t, cl, n.Topic, true, keyed("O-1", "O-2")...)
			inTransaction(t, cl, n.Topic, true, keyed("O-2", "O-3")...)
			commitOffset(t, s, n.Group, "orders", 2)
		}, "killedAborted=noCrashAbort eachOrderOnce=inputTwice groupAtEnd=groupBehind"},
		{"exactly-once nothing", "exactly-once", func(t *testing.T, s Student, n Names) {},
			"killedAborted=noCrashAbort eachOrderOnce=missingInput groupAtEnd=noGroupOffset"},
		{"zombie right", "zombie", fenceZombie, "fenced=ok noZombieWrite=ok"},
		{"zombie one process", "zombie", func(t *testing.T, s Student, n Names) {
			inTransaction(t, client(t, s, kgo.TransactionalID(n.TransactionalID)), n.Topic, true, "a")
		}, "fenced=noFencedAbort noZombieWrite=oneEpoch"},
	}
	writeOrders(t, cr, "O-1", "O-2", "O-3")
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex, ok := Find(tt.exercise)
			if !ok {
				t.Fatalf("no exercise %s", tt.exercise)
			}
			s := cr.join(t, "s"+itoa(i)+"x")
			tt.run(t, s, ex.NamesFor(s.Name))
			gradeUntil(t, cr.lab, ex, s.Name, tt.want)
		})
	}
}

// commitGroup commits offset for the student's group, as a consumer of
// their topic would.
func commitGroup(t *testing.T, s Student, n Names, offset int64) {
	t.Helper()
	commitOffset(t, s, n.Group, n.Topic, offset)
}

// commitOffset commits offset of topic's partition 0 for group, as the
// student.
func commitOffset(t *testing.T, s Student, group, topic string, offset int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: topic, Partition: 0, At: offset, LeaderEpoch: -1})
	resp, err := kadm.NewClient(client(t, s)).CommitOffsets(ctx, group, o)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("commit %s: %v", group, err)
	}
}

// writeOrders is the teacher writing the shared orders, keyed by order.
func writeOrders(t *testing.T, cr *classroom, keys ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := cr.cluster.CreateTopic(ctx, cluster.TopicSpec{Name: "orders", Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	var recs []*kgo.Record
	for _, k := range keys {
		recs = append(recs, &kgo.Record{Topic: "orders", Key: []byte(k), Value: []byte("order " + k)})
	}
	if err := cr.cluster.Client().ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// fenceZombie is the zombie exercise done right: process 1 writes in an
// open transaction, process 2 with the same transactional id initialises
// and commits, process 1's late commit is refused.
func fenceZombie(t *testing.T, s Student, n Names) {
	first := client(t, s, kgo.TransactionalID(n.TransactionalID))
	if err := first.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produce(t, first, n.Topic, "zombie")
	second := client(t, s, kgo.TransactionalID(n.TransactionalID))
	inTransaction(t, second, n.Topic, true, "successor")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := first.ProduceSync(ctx, records(n.Topic, "late")...).FirstErr()
	if err == nil {
		err = first.EndTransaction(ctx, kgo.TryCommit)
	}
	if !errors.Is(err, kerr.ProducerFenced) && !errors.Is(err, kerr.InvalidProducerEpoch) && !errors.Is(err, kerr.InvalidTxnState) {
		t.Fatalf("the zombie's late write: got %v, want it fenced", err)
	}
}

// TestStarters: each exercise has starter code for the four clients
// (the share exercise: Java and Go), filled in with the student's names
// and credentials.
func TestStarters(t *testing.T) {
	id := Identity{Bootstrap: "10.0.0.5:9092", SecurityProtocol: "SASL_PLAINTEXT", SASLMechanism: "SCRAM-SHA-256", Username: "ann", Password: "pw123"}
	for _, ex := range Builtin() {
		n := ex.NamesFor("ann")
		starters := ex.Starters(id, n)
		want := 4
		if ex.ID == "share" {
			want = 2
		}
		if len(starters) != want {
			t.Errorf("%s: %d starters, want %d", ex.ID, len(starters), want)
		}
		for _, s := range starters {
			for _, want := range []string{"10.0.0.5:9092", "pw123", n.Topic} {
				if !strings.Contains(s.Code, want) {
					t.Errorf("%s %s starter lacks %q:\n%s", ex.ID, s.Client, want, s.Code)
				}
			}
		}
	}
}
