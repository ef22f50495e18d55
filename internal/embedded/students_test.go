package embedded

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// TestStudentLogsIn: a student added through AlterUserScramCredentials
// (8192 iterations, as Kafka's tools make them) logs in to a classroom's
// embedded broker and writes their own topic. Red without kfake's
// server-first message naming the user's own iteration count.
func TestStudentLogsIn(t *testing.T) {
	c, err := Start(Config{KafkaAddr: "127.0.0.1:0", Students: &StudentAuth{Admin: "admin", AdminPassword: "secret"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.AddStudent(ctx, cluster.Student{User: "ann", Password: "pw", Prefix: "student-ann-"}); err != nil {
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
	first, err := Start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	second, err := Start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir, Students: &StudentAuth{Admin: "admin", AdminPassword: "secret"}})
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

// TestDataDirPrivate: a classroom's data directory is 0700 and its secret
// files 0600 — sasl.json (salted passwords: SCRAM logs in with them) and
// the super user's password — after a student is added, and a start on a
// directory an older run left 0755 with sasl.json 0644 fixes both.
func TestDataDirPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	start := func() *cluster.Cluster {
		t.Helper()
		auth, err := ClassroomAdmin(dir)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Start(Config{KafkaAddr: "127.0.0.1:0", DataDir: dir, Students: auth})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	modes := func(when string) {
		t.Helper()
		for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "sasl.json"): 0o600, filepath.Join(dir, adminSecretFile): 0o600} {
			info, err := os.Stat(path)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if got := info.Mode().Perm(); got != want {
				t.Errorf("%s: %s is %v, want %v", when, filepath.Base(path), got, want)
			}
		}
	}
	c := start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.AddStudent(ctx, cluster.Student{User: "ann", Password: "pw", Prefix: "student-ann-"}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	modes("after a student joined")

	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "sasl.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = start()
	defer c.Close()
	modes("after a start on an older run's directory")
}
