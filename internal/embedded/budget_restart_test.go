package embedded

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
)

// TestStudentShareKeptAcrossRestart: a classroom student's share of the
// data budget holds what their topics store across a restart of the
// broker on its data directory, after Close or after a crash (a second
// broker started on the directory of one that was never closed, as
// killedAndRestarted does): the student page reads the same used bytes,
// a write a fresh share would take is refused, and deleting the records,
// then the topic, gives the share back. Red without Start seeding the shares (budget.go
// seed): the share read 0 after the restart and the write was stored.
func TestStudentShareKeptAcrossRestart(t *testing.T) {
	t.Parallel()
	const share = 3 << 20
	for _, crash := range []bool{false, true} {
		name := "Close"
		if crash {
			name = "crash"
		}
		t.Run(name, func(t *testing.T) {
			cfg := Config{DataDir: t.TempDir(), Budget: DataBudget{MaxBytes: 64 << 20, StudentMaxBytes: share}}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			const topic = "student-ann-kept"

			first, fb := classroomWithStudents(t, cfg, nil, "ann")
			ann := kafkaUser(t, first, "ann", "pw", kgo.ProducerLinger(0), kgo.RecordRetries(3), kgo.RetryTimeout(5*time.Second))
			if _, err := kadm.NewClient(ann).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
				t.Fatalf("ann creates %s: %v", topic, err)
			}
			// Most of the share: from 7/8 of it on, a quarter of it
			// more is refused; a fresh share takes it.
			value := incompressible(32 << 10)
			for usedBytes(ctx, t, fb) < share/8*7 {
				if err := ann.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: value}).FirstErr(); err != nil {
					t.Fatalf("filling ann's share: %v", err)
				}
			}
			// A teacher's topic stores as much; it is no student's.
			if _, err := first.CreateTopic(ctx, cluster.TopicSpec{Name: "lab-kept", Partitions: 1}); err != nil {
				t.Fatal(err)
			}
			teacher := kafkaUser(t, first, "admin", "secret", kgo.ProducerLinger(0))
			for range 80 {
				if err := teacher.ProduceSync(ctx, &kgo.Record{Topic: "lab-kept", Value: value}).FirstErr(); err != nil {
					t.Fatalf("the teacher's write: %v", err)
				}
			}
			before := usedBytes(ctx, t, fb)
			ann.Close()
			teacher.Close()
			if !crash {
				first.Close()
			}

			second, sb := classroomWithStudents(t, cfg, nil, "ann")
			if got := usedBytes(ctx, t, sb); got != before {
				t.Errorf("ann's share after the restart: %d bytes used; want %d, as before", got, before)
			} else {
				t.Logf("ann's share: %d of %d bytes used before the restart and after", got, share)
			}
			ann = kafkaUser(t, second, "ann", "pw", kgo.ProducerLinger(0), kgo.RecordRetries(3), kgo.RetryTimeout(5*time.Second))
			quarter := &kgo.Record{Topic: topic, Value: incompressible(share / 4)}
			if err := ann.ProduceSync(ctx, quarter).FirstErr(); !errors.Is(err, kerr.PolicyViolation) {
				t.Errorf("ann's write of a quarter of her share after the restart: %v; want POLICY_VIOLATION", err)
			}
			// What DeleteRecords frees goes back to the share (Freed),
			// the rest when the topic is deleted (TopicDeleted).
			adm := kadm.NewClient(ann)
			ends, err := adm.ListEndOffsets(ctx, topic)
			if err != nil {
				t.Fatal(err)
			}
			deleted, err := adm.DeleteRecords(ctx, ends.Offsets())
			if err == nil {
				err = deleted.Error()
			}
			if err != nil {
				t.Fatalf("ann deletes her records: %v", err)
			}
			if got := usedBytes(ctx, t, sb); got >= before || got > share/8 {
				t.Errorf("ann's share after she deleted her records: %d bytes used; want at most %d", got, share/8)
			}
			if _, err := adm.DeleteTopic(ctx, topic); err != nil {
				t.Fatalf("ann deletes %s: %v", topic, err)
			}
			if got := usedBytes(ctx, t, sb); got != 0 {
				t.Errorf("ann's share after she deleted her topic: %d bytes used; want 0", got)
			}
			quarter.Topic = "student-ann-again"
			if _, err := adm.CreateTopic(ctx, 1, 1, nil, quarter.Topic); err != nil {
				t.Fatalf("ann creates %s: %v", quarter.Topic, err)
			}
			if err := ann.ProduceSync(ctx, quarter).FirstErr(); err != nil {
				t.Errorf("ann's write of a quarter of her share once her topic is gone: %v", err)
			}
		})
	}
}

// usedBytes is ann's used share as the student page reads it.
func usedBytes(ctx context.Context, t *testing.T, b *broker) int64 {
	t.Helper()
	s, ok := b.StudentShare(ctx, "ann")
	if !ok {
		t.Fatal("no share for ann")
	}
	return s.UsedBytes
}
