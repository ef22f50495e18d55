package embedded

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestTopicLimits fills the embedded broker to its caps through its Kafka
// port, the way a student's client would: CreateTopics, CreatePartitions
// and a producer's auto-creating Metadata are refused POLICY_VIOLATION
// with a message past either cap, and the dashboard's own create path
// says so; what fits is created.
func TestTopicLimits(t *testing.T) {
	t.Parallel()
	c, err := Start(Config{KafkaAddr: "127.0.0.1:0", Topics: TopicLimits{MaxTopics: 3, MaxPartitions: 5}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.AllowAutoTopicCreation(), kgo.UnknownTopicRetries(1))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	create := func(name string, partitions int32) (kadm.CreateTopicResponse, error) {
		t.Helper()
		resp, err := adm.CreateTopic(ctx, partitions, 1, nil, name)
		if err == nil {
			err = resp.Err
		}
		return resp, err
	}
	refused := func(what string, msg string, err error, want string) {
		t.Helper()
		if !errors.Is(err, kerr.PolicyViolation) || !strings.Contains(msg, want) {
			t.Errorf("%s: %v %q, want POLICY_VIOLATION saying %q", what, err, msg, want)
		}
	}
	for _, name := range []string{"a", "b"} {
		if _, err := create(name, 2); err != nil {
			t.Fatalf("create %s within the caps: %v", name, err)
		}
	}
	resp, err := create("c", 2)
	refused("a topic past the partition cap", resp.ErrMessage, err, "at most 5 partitions")
	if _, err := create("c", 1); err != nil {
		t.Fatalf("a topic that fits both caps: %v", err)
	}
	resp, err = create("d", 1)
	refused("a 4th topic", resp.ErrMessage, err, "at most 3 topics")
	parts, err := adm.CreatePartitions(ctx, 1, "a")
	if err != nil {
		t.Fatal(err)
	}
	refused("a partition past the cap", parts["a"].ErrMessage, parts["a"].Err, "at most 5 partitions")

	// A producer's Metadata would auto-create the topic: refused, and
	// kgo fails the record with the broker's error at once.
	res := cl.ProduceSync(ctx, &kgo.Record{Topic: "auto", Value: []byte("x")})
	if err := res.FirstErr(); !errors.Is(err, kerr.PolicyViolation) {
		t.Errorf("producing to a new topic past the cap: %v, want POLICY_VIOLATION", err)
	} else {
		t.Logf("kgo reports: %v", err)
	}

	// The dashboard's own path.
	_, err = c.CreateTopic(ctx, cluster.TopicSpec{Name: "e", Partitions: 1})
	if got := problem.KeyOf(err); got != "error.topicLimit" || problem.KindOf(err) != problem.Conflict {
		t.Errorf("the dashboard's create past the cap: %q %v, want a conflict error.topicLimit", got, err)
	}
	topics, err := c.Topics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(topics) != 3 {
		t.Errorf("the broker holds %d topics, want the 3 that fit", len(topics))
	}
}

// TestStudentTopicShares: a classroom student's topics and partitions
// (their namespace) are held to their share, whoever asks: past it
// CreateTopics and CreatePartitions answer POLICY_VIOLATION with a
// message naming the student, and a producer's auto-creating Metadata
// creates nothing; another student and the teacher still create; a
// deleted topic gives its room back. Red without the shares: ann
// created as many as she asked for.
func TestStudentTopicShares(t *testing.T) {
	t.Parallel()
	c, err := Start(Config{KafkaAddr: "127.0.0.1:0", Topics: TopicLimits{StudentMaxTopics: 3, StudentMaxPartitions: 5}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	create := func(topic string, partitions int32) error {
		t.Helper()
		resp, err := c.Admin().CreateTopic(ctx, partitions, 1, nil, topic)
		if err == nil {
			err = resp.Err
		}
		return err
	}
	for _, tt := range []struct {
		topic      string
		partitions int32
		refused    bool
	}{
		{"student-ann-a", 2, false},
		{"student-ann-b", 3, false},
		{"student-ann-c", 1, true}, // 6 partitions > 5
		{"student-bob-a", 5, false},
		{"lesson-orders-1a2b3c", 40, false},
	} {
		err := create(tt.topic, tt.partitions)
		if refused := errors.Is(err, kerr.PolicyViolation); refused != tt.refused || !refused && err != nil {
			t.Errorf("create %s with %d partitions: %v, refused want %v", tt.topic, tt.partitions, err, tt.refused)
		}
	}
	grown, err := c.Admin().CreatePartitions(ctx, 1, "student-ann-a")
	if err == nil {
		err = grown.Error()
	}
	if !errors.Is(err, kerr.PolicyViolation) {
		t.Errorf("ann adding a partition past her share: %v, want POLICY_VIOLATION", err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.AllowAutoTopicCreation(), kgo.RecordRetries(2), kgo.RecordDeliveryTimeout(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "student-ann-auto", Value: []byte("x")}).FirstErr(); err == nil {
		t.Error("a produce auto-created a topic past ann's share")
	}
	if _, err := c.Topic(ctx, "student-ann-auto"); err == nil {
		t.Error("student-ann-auto exists")
	}
	if _, err := c.Admin().DeleteTopics(ctx, "student-ann-b"); err != nil {
		t.Fatal(err)
	}
	if err := create("student-ann-c", 1); err != nil {
		t.Errorf("ann creating once she deleted a topic: %v", err)
	}
}
