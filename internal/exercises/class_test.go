package exercises

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/problem"
)

// TestJoinNames: a name is 2–16 letters and digits starting with a
// letter, unique in the class ignoring case.
func TestJoinNames(t *testing.T) {
	class := NewClass(ClassConfig{Bootstrap: []string{"127.0.0.1:9092"}})
	ctx := context.Background()
	if _, err := class.Join(ctx, "Ann"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want problem.Kind
	}{
		{"bob", ""},
		{"ann", problem.Conflict},
		{"ANN", problem.Conflict},
		{"a", problem.Invalid},
		{"1ann", problem.Invalid},
		{"ann-b", problem.Invalid},
		{"ann b", problem.Invalid},
		{"abcdefghijklmnopq", problem.Invalid},
		{"김철수", problem.Invalid},
		{"", problem.Invalid},
	}
	for _, tt := range tests {
		_, err := class.Join(ctx, tt.name)
		if got := problem.KindOf(err); got != tt.want {
			t.Errorf("Join(%q): kind %q (%v), want %q", tt.name, got, err, tt.want)
		}
	}
	s, _ := class.Join(ctx, "carol")
	if s.Kafka.Topic != "student-carol-" || s.Kafka.Managed || s.Kafka.Password != "" || s.Kafka.SecurityProtocol != "PLAINTEXT" {
		t.Errorf("unmanaged identity: %+v", s.Kafka)
	}
	if got, ok := class.ByToken(s.Token); !ok || got.Name != "carol" {
		t.Errorf("ByToken: %v %v", got, ok)
	}
	if _, ok := class.ByToken("nope"); ok {
		t.Error("ByToken of an unknown token found a student")
	}
	var names []string
	for _, s := range class.Students() {
		names = append(names, s.Name)
	}
	if got, want := len(names), 3; got != want || names[0] != "Ann" || names[2] != "carol" {
		t.Errorf("students %v, want Ann, bob, carol", names)
	}
}

// TestStudentsConfined: on a classroom's embedded broker a student
// writes their own topic, and is refused another's topic
// (TOPIC_AUTHORIZATION_FAILED) and another's transactional id
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); the teacher's shared topic is
// readable, not writable.
func TestStudentsConfined(t *testing.T) {
	cr := newClassroom(t)
	ann, bob := cr.join(t, "ann"), cr.join(t, "bob")
	produce(t, client(t, bob), "student-bob-commit", "bob's")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := client(t, ann).ProduceSync(ctx, records("student-bob-commit", "ann's")...).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Errorf("ann writing bob's topic: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	txn := client(t, ann, kgo.TransactionalID("student-bob-commit"))
	err = txn.BeginTransaction()
	if err == nil {
		err = txn.ProduceSync(ctx, records("student-ann-commit", "x")...).FirstErr()
	}
	if !errors.Is(err, kerr.TransactionalIDAuthorizationFailed) {
		t.Errorf("ann using bob's transactional id: %v, want TRANSACTIONAL_ID_AUTHORIZATION_FAILED", err)
	}
	if _, err := cr.cluster.CreateTopic(ctx, cluster.TopicSpec{Name: "orders", Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	err = client(t, ann).ProduceSync(ctx, records("orders", "fake order")...).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Errorf("ann writing the shared orders: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	// Ann's own topic still works after the refusals.
	produce(t, client(t, ann), "student-ann-commit", "mine")

	// A name whose prefix already starts a topic (a removed student's,
	// kept) is taken: its ACLs would cover that topic.
	if _, err := cr.cluster.CreateTopic(ctx, cluster.TopicSpec{Name: "student-eve-commit", Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := cr.class.Join(ctx, "eve"); problem.KindOf(err) != problem.Conflict {
		t.Errorf("joining as eve with a topic student-eve-commit: %v, want a conflict", err)
	}
}

// TestStudentNamespace: a student who joined before a lesson named like
// them ran ("order", then the lesson's order-totals-tx-1a2b) owns none
// of the lesson's names: the topic, its transactional id and its group
// are all refused. Red under the former rule of ACLs on "<name>-".
func TestStudentNamespace(t *testing.T) {
	cr := newClassroom(t)
	order := cr.join(t, "order")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const lessonName = "order-totals-tx-1a2b"
	if _, err := cr.cluster.CreateTopic(ctx, cluster.TopicSpec{Name: lessonName, Partitions: 1}); err != nil {
		t.Fatal(err)
	}
	err := client(t, order).ProduceSync(ctx, records(lessonName, "INJECTED")...).FirstErr()
	if !errors.Is(err, kerr.TopicAuthorizationFailed) {
		t.Errorf("writing the lesson's topic: %v, want TOPIC_AUTHORIZATION_FAILED", err)
	}
	txn := client(t, order, kgo.TransactionalID(lessonName))
	err = txn.BeginTransaction()
	if err == nil {
		err = txn.ProduceSync(ctx, records("student-order-commit", "x")...).FirstErr()
	}
	if !errors.Is(err, kerr.TransactionalIDAuthorizationFailed) {
		t.Errorf("the lesson's transactional id: %v, want TRANSACTIONAL_ID_AUTHORIZATION_FAILED", err)
	}
	produce(t, client(t, order), "student-order-commit", "mine")
	offsets := kadm.Offsets{} // of the student's own topic: only the group is refused
	offsets.Add(kadm.Offset{Topic: "student-order-commit", Partition: 0, At: 1, LeaderEpoch: -1})
	committed, err := kadm.NewClient(client(t, order)).CommitOffsets(ctx, lessonName, offsets)
	if err == nil {
		err = committed.Error()
	}
	if !errors.Is(err, kerr.GroupAuthorizationFailed) {
		t.Errorf("committing the lesson's group: %v, want GROUP_AUTHORIZATION_FAILED", err)
	}
	if got, want := order.Kafka.Topic, "student-order-"; got != want {
		t.Errorf("prefix %q, want %q", got, want)
	}
}
