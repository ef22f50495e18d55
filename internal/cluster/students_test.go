package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestStudentLogsIn: a student added through AlterUserScramCredentials
// (8192 iterations, as Kafka's tools make them) logs in to a classroom's
// embedded broker and writes their own topic. Red without kfake's
// server-first message naming the user's own iteration count.
func TestStudentLogsIn(t *testing.T) {
	c, err := StartEmbedded(EmbeddedConfig{KafkaAddr: "127.0.0.1:0", Students: &StudentAuth{Admin: "admin", AdminPassword: "secret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.AddStudent(ctx, Student{User: "ann", Password: "pw", Prefix: "student-ann-"}); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.AllowAutoTopicCreation(),
		kgo.SASL(scram.Auth{User: "ann", Pass: "pw"}.AsSha256Mechanism()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "student-ann-x", Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatalf("the student's produce: %v", err)
	}
}

// TestClassroomOnUsedDataDir: a data directory first used without a
// classroom (its sasl.json empty) still lets the classroom's super user
// in. Red without kfake keeping seeded users over persisted ones.
func TestClassroomOnUsedDataDir(t *testing.T) {
	dir := t.TempDir()
	first, err := StartEmbedded(EmbeddedConfig{KafkaAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	second, err := StartEmbedded(EmbeddedConfig{KafkaAddr: "127.0.0.1:0", DataDir: dir, Students: &StudentAuth{Admin: "admin", AdminPassword: "secret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := second.Topics(ctx); err != nil {
		t.Fatalf("the dashboard's super user: %v", err)
	}
}
