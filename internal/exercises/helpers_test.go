package exercises

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/offsetlab/offsetlab/internal/cluster"
	"github.com/offsetlab/offsetlab/internal/embedded"
	"github.com/offsetlab/offsetlab/internal/lab"
	"github.com/offsetlab/offsetlab/internal/wait"
)

// classroom is an embedded broker in classroom mode (SASL and ACLs), the
// lab over it and a class whose students it makes users of.
type classroom struct {
	cluster *cluster.Cluster
	lab     *lab.Lab
	class   *Class
}

func newClassroom(t *testing.T) *classroom {
	t.Helper()
	c, err := embedded.Start(embedded.Config{
		KafkaAddr: "127.0.0.1:0",
		Students:  &embedded.StudentAuth{Admin: "offsetlab-admin", AdminPassword: "admin-secret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	l := lab.New(lab.Config{Cluster: c})
	t.Cleanup(l.Close)
	class := NewClass(ClassConfig{Users: c, Bootstrap: c.Brokers(), SecurityProtocol: "SASL_PLAINTEXT", SharedTopics: []string{"orders"}})
	return &classroom{cluster: c, lab: l, class: class}
}

// join adds a student, failing the test if the class refuses.
func (cr *classroom) join(t *testing.T, name string) Student {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := cr.class.Join(ctx, name)
	if err != nil {
		t.Fatalf("join %s: %v", name, err)
	}
	return s
}

// client is a franz-go client logged in as the student, as a student's
// own program would be.
func client(t *testing.T, s Student, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	base := []kgo.Opt{
		kgo.SeedBrokers(strings.Split(s.Kafka.Bootstrap, ",")...),
		kgo.SASL(scram.Auth{User: s.Kafka.Username, Pass: s.Kafka.Password}.AsSha256Mechanism()),
		kgo.AllowAutoTopicCreation(),
		kgo.RetryTimeout(10 * time.Second),
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// records are values on topic; a value "key=value" (see keyed) is
// written with its key.
func records(topic string, values ...string) []*kgo.Record {
	var out []*kgo.Record
	for _, v := range values {
		r := &kgo.Record{Topic: topic, Value: []byte(v)}
		if k, val, ok := strings.Cut(v, "="); ok {
			r.Key, r.Value = []byte(k), []byte(val)
		}
		out = append(out, r)
	}
	return out
}

// keyed are "key=total of key" values, an order processor's output.
func keyed(keys ...string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k+"=total of "+k)
	}
	return out
}

// produce writes values to topic and fails the test on an error.
func produce(t *testing.T, cl *kgo.Client, topic string, values ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, records(topic, values...)...).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}

// inTransaction begins a transaction, writes values and ends it.
func inTransaction(t *testing.T, cl *kgo.Client, topic string, commit bool, values ...string) {
	t.Helper()
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	produce(t, cl, topic, values...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		t.Fatalf("end transaction: %v", err)
	}
}

// verdicts is a result as "key=ok" or "key=hint-key" per check.
func verdicts(r Result) string {
	var parts []string
	for _, c := range r.Checks {
		v := "ok"
		if !c.OK {
			v = strings.TrimPrefix(c.Hint.Key, "exercise.hint.")
		}
		parts = append(parts, c.Key+"="+v)
	}
	return strings.Join(parts, " ")
}

// gradeUntil grades the student until the verdicts are want (markers
// and the coordinator settle after the client returns) or 15 s pass, and
// returns the last result.
func gradeUntil(t *testing.T, b Broker, ex Exercise, student string, want string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var last Result
	err := wait.Until(ctx, 100*time.Millisecond, func(ctx context.Context) (bool, error) {
		last = Grade(ctx, b, ex, student, 0)
		return verdicts(last) == want, nil
	})
	if err != nil {
		t.Errorf("%s of %s: got %s, want %s (%v)", ex.ID, student, verdicts(last), want, fmt.Sprint(err))
	}
	return last
}
