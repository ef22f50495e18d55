package embedded

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestStudentShareGivenBackWhenFreed: a classroom student who filled
// their share of the data budget (their writes refused POLICY_VIOLATION)
// gets it back, and writes again, when the broker drops their data —
// DeleteRecords, retention.ms, retention.bytes, compaction, DeleteTopics
// — each done as the student would, with their own SCRAM identity. Red
// without kfake's Freed storage hook (patch 25) for all but DeleteTopics:
// the share stayed full after the data was gone.
func TestStudentShareGivenBackWhenFreed(t *testing.T) {
	t.Parallel()
	const share = 3 << 20
	c, b := classroomWithStudents(t, Config{DataDir: t.TempDir(), Budget: DataBudget{MaxBytes: 64 << 20, StudentMaxBytes: share}}, nil, "ann")
	ann := kafkaUser(t, c, "ann", "pw", kgo.ProducerLinger(0), kgo.RecordRetries(3), kgo.RetryTimeout(5*time.Second))
	adm := kadm.NewClient(ann)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	used := func() int64 { return b.budget.clientShare(studentShareKey + "ann") }
	set := func(topic, name, value string) error {
		altered, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: name, Value: &value}}, topic)
		if err == nil {
			for _, a := range altered {
				err = a.Err
			}
		}
		return err
	}
	value := incompressible(32 << 10)
	tests := []struct {
		name string
		// configs are the topic's; free drops the student's data from it.
		configs map[string]*string
		free    func(topic string) error
		// left is the most of the share that may stay used.
		left int64
	}{
		{"DeleteRecords", nil, func(topic string) error {
			ends, err := adm.ListEndOffsets(ctx, topic)
			if err != nil {
				return err
			}
			deleted, err := adm.DeleteRecords(ctx, ends.Offsets())
			if err == nil {
				err = deleted.Error()
			}
			return err
		}, share / 8},
		{"retention.ms", nil, func(topic string) error { return set(topic, "retention.ms", "1") }, share / 8},
		// As on Kafka, retention.bytes frees disk a whole segment at a
		// time: 1 MiB segments (Kafka's smallest) over a 3 MiB share.
		{"retention.bytes", map[string]*string{"segment.bytes": kadm.StringPtr("1048576")}, func(topic string) error {
			return set(topic, "retention.bytes", "1048576")
		}, share / 2},
		{"compaction", nil, func(topic string) error { return set(topic, "cleanup.policy", "compact") }, share / 8},
		{"DeleteTopics", nil, func(topic string) error {
			_, err := adm.DeleteTopic(ctx, topic)
			return err
		}, 0},
	}
	for _, tt := range tests {
		topic := "student-ann-" + tt.name
		if _, err := adm.CreateTopic(ctx, 1, 1, tt.configs, topic); err != nil {
			t.Fatalf("%s: ann creates %s: %v", tt.name, topic, err)
		}
		// Compaction keeps the last record of each key: every record
		// of the filling shares one key.
		n := 0
		var err error
		for ; n < 1000 && err == nil; n++ {
			err = ann.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: []byte("k"), Value: value}).FirstErr()
		}
		if !errors.Is(err, kerr.PolicyViolation) {
			t.Fatalf("%s: filling the share: %d records, then %v; want POLICY_VIOLATION", tt.name, n, err)
		}
		full := used()
		if err := tt.free(topic); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for used() > tt.left && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond) // the cleaner's own tick: nothing to wait on
		}
		after := used()
		t.Logf("%s: share %d of %d bytes used when refused (%d records), %d after", tt.name, full, share, n-1, after)
		if after > tt.left {
			t.Errorf("%s: ann's share still holds %d bytes (%d when full); want at most %d", tt.name, after, full, tt.left)
		} else if tt.name != "DeleteTopics" {
			if err := ann.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: []byte("k"), Value: value}).FirstErr(); err != nil {
				t.Errorf("%s: ann's write after her data went: %v", tt.name, err)
			}
		}
		// The next case starts from an empty share.
		if tt.name != "DeleteTopics" {
			if _, err := adm.DeleteTopic(ctx, topic); err != nil {
				t.Fatal(err)
			}
		}
		for deadline := time.Now().Add(10 * time.Second); used() > 0 && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
	}
}
